package analyzer

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

func has(t *testing.T, sql, list string, got []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%q: %s %v lacks %q", sql, list, got, w)
		}
	}
}

func lacks(t *testing.T, sql, list string, got []string, not ...string) {
	t.Helper()
	for _, n := range not {
		if slices.Contains(got, n) {
			t.Errorf("%q: %s %v must not hold %q", sql, list, got, n)
		}
	}
}

func one(t *testing.T, sql string) Statement {
	t.Helper()
	r := Analyze(sql, "app")
	if r.Err != nil {
		t.Fatalf("%q: %v", sql, r.Err)
	}
	if len(r.Statements) != 1 {
		t.Fatalf("%q: %d statements", sql, len(r.Statements))
	}
	return r.Statements[0]
}

// Statements agents, ORMs and mysqldump send, with the kinds a rule sees.
func TestActions(t *testing.T) {
	cases := []struct {
		sql       string
		want, not []string
	}{
		// agents
		{"SELECT 1", []string{"SELECT"}, []string{"DELETE", "SELECT_INTO"}},
		{"SHOW DATABASES", []string{"SHOW"}, []string{"SELECT"}},
		{"SHOW FULL COLUMNS FROM `users`", []string{"SHOW"}, nil},
		{"SHOW CREATE TABLE users", []string{"SHOW"}, nil},
		{"DESCRIBE users", []string{"EXPLAIN"}, []string{"SELECT"}},
		{"EXPLAIN SELECT * FROM users", []string{"EXPLAIN"}, []string{"SELECT"}},
		{"EXPLAIN DELETE FROM users", []string{"EXPLAIN"}, []string{"DELETE"}},
		{"EXPLAIN ANALYZE DELETE FROM users WHERE id = 1", []string{"EXPLAIN", "DELETE"}, nil},
		{"SELECT COUNT(*) FROM orders WHERE created_at > NOW() - INTERVAL 7 DAY", []string{"SELECT"}, nil},
		{"WITH RECURSIVE c AS (SELECT 1 n UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT * FROM c", []string{"SELECT"}, nil},
		{"SELECT a FROM t UNION SELECT b FROM u", []string{"SELECT"}, nil},
		{"TABLE t", []string{"SELECT"}, nil},
		{"VALUES ROW(1, 2)", []string{"SELECT"}, nil},
		{"EXPLAIN FOR CONNECTION 5", []string{"EXPLAIN"}, nil},
		{"SET DEFAULT ROLE r TO 'bob'@'%'", []string{"SET", "SET_DEFAULT_ROLE"}, nil},
		{"GRANT PROXY ON 'a'@'%' TO 'b'@'%'", []string{"GRANT", "GRANT_PROXY"}, nil},
		{"ALTER INSTANCE RELOAD TLS", []string{"ALTER", "ALTER_INSTANCE"}, nil},
		{"SELECT * FROM t FOR UPDATE", []string{"SELECT", "SELECT_FOR_UPDATE"}, []string{"LOCK", "UPDATE"}},
		{"SELECT * FROM t WHERE id = 1 LOCK IN SHARE MODE", []string{"SELECT", "SELECT_FOR_SHARE"}, []string{"LOCK"}},
		{"SELECT * FROM t FOR SHARE SKIP LOCKED", []string{"SELECT_FOR_SHARE"}, nil},
		{"SELECT * FROM t INTO OUTFILE '/tmp/t.csv'", []string{"SELECT", "SELECT_INTO", "SELECT_INTO_OUTFILE"}, nil},
		{"UPDATE users SET email = 'x@example.com' WHERE id = 5", []string{"UPDATE"}, []string{"SELECT"}},
		{"UPDATE t1 JOIN t2 ON t1.id = t2.id SET t1.a = t2.a", []string{"UPDATE"}, nil},
		{"DELETE FROM sessions WHERE expires_at < NOW()", []string{"DELETE"}, nil},
		{"DELETE t1 FROM t1 JOIN t2 ON t1.id = t2.id", []string{"DELETE"}, nil},
		{"INSERT INTO t (a) VALUES (1), (2)", []string{"INSERT"}, []string{"UPDATE", "DELETE"}},
		{"INSERT IGNORE INTO t (a) VALUES (1)", []string{"INSERT"}, nil},
		{"INSERT INTO t (a) SELECT a FROM u", []string{"INSERT", "SELECT"}, nil},
		{"INSERT INTO t (id, a) VALUES (1, 2) ON DUPLICATE KEY UPDATE a = VALUES(a)", []string{"INSERT", "UPDATE"}, nil},
		{"REPLACE INTO t (id, a) VALUES (1, 2)", []string{"REPLACE", "INSERT", "DELETE"}, nil},
		{"TRUNCATE TABLE logs", []string{"TRUNCATE"}, []string{"DELETE"}},
		{"TRUNCATE logs", []string{"TRUNCATE"}, nil},
		{"DROP TABLE IF EXISTS tmp, tmp2", []string{"DROP", "DROP_TABLE"}, []string{"DROP_DATABASE"}},
		{"DROP TEMPORARY TABLE tmp", []string{"DROP", "DROP_TABLE"}, nil},
		{"DROP VIEW v", []string{"DROP", "DROP_VIEW"}, []string{"DROP_TABLE"}},
		{"DROP DATABASE prod", []string{"DROP", "DROP_DATABASE"}, []string{"DROP_TABLE"}},
		{"DROP SCHEMA prod", []string{"DROP", "DROP_DATABASE"}, nil},
		{"DROP INDEX idx ON t", []string{"DROP", "DROP_INDEX"}, nil},
		{"DROP USER 'bob'@'%'", []string{"DROP", "DROP_USER"}, nil},
		{"DROP ROLE r", []string{"DROP", "DROP_ROLE"}, nil},
		{"DROP PROCEDURE IF EXISTS p", []string{"DROP", "DROP_PROCEDURE"}, nil},
		{"DROP SEQUENCE s", []string{"DROP", "DROP_SEQUENCE"}, nil},
		{"CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4", []string{"CREATE", "CREATE_TABLE"}, nil},
		{"CREATE TABLE IF NOT EXISTS t2 LIKE t", []string{"CREATE", "CREATE_TABLE"}, nil},
		{"CREATE TABLE t3 AS SELECT * FROM t", []string{"CREATE", "CREATE_TABLE", "SELECT"}, nil},
		{"CREATE TEMPORARY TABLE tmp (a INT)", []string{"CREATE_TABLE"}, nil},
		{"CREATE INDEX idx ON t (a)", []string{"CREATE", "CREATE_INDEX"}, nil},
		{"CREATE UNIQUE INDEX idx ON t (a)", []string{"CREATE_INDEX"}, nil},
		{"CREATE VIEW v AS SELECT * FROM t", []string{"CREATE", "CREATE_VIEW"}, []string{"ALTER_VIEW"}},
		{"CREATE OR REPLACE VIEW v AS SELECT * FROM t", []string{"CREATE_VIEW", "ALTER_VIEW"}, nil},
		{"CREATE DATABASE IF NOT EXISTS d", []string{"CREATE", "CREATE_DATABASE"}, nil},
		{"CREATE USER 'bob'@'%' IDENTIFIED BY 'pw'", []string{"CREATE", "CREATE_USER"}, nil},
		{"CREATE ROLE r", []string{"CREATE", "CREATE_ROLE"}, nil},
		{"CREATE SEQUENCE s START WITH 1", []string{"CREATE", "CREATE_SEQUENCE"}, nil},
		{"CREATE PROCEDURE p() BEGIN DELETE FROM t; END", []string{"CREATE", "CREATE_PROCEDURE"}, []string{"DELETE"}},
		{"ALTER TABLE users ADD COLUMN age INT", []string{"ALTER", "ALTER_TABLE"}, []string{"DROP"}},
		{"ALTER TABLE users DROP COLUMN age", []string{"ALTER", "ALTER_TABLE"}, []string{"DROP"}},
		{"ALTER TABLE users RENAME TO people", []string{"ALTER", "ALTER_TABLE", "RENAME"}, nil},
		{"RENAME TABLE a TO b, c TO d", []string{"ALTER", "ALTER_TABLE", "RENAME"}, nil},
		{"ALTER DATABASE d CHARACTER SET utf8mb4", []string{"ALTER", "ALTER_DATABASE"}, nil},
		{"ALTER USER 'bob'@'%' IDENTIFIED BY 'x'", []string{"ALTER", "ALTER_USER"}, nil},
		{"RENAME USER 'a'@'%' TO 'b'@'%'", []string{"ALTER", "ALTER_USER", "RENAME"}, nil},
		{"GRANT SELECT ON app.* TO 'bob'@'%'", []string{"GRANT"}, []string{"REVOKE"}},
		{"GRANT ALL PRIVILEGES ON *.* TO 'bob'@'%' WITH GRANT OPTION", []string{"GRANT"}, nil},
		{"REVOKE INSERT ON app.t FROM 'bob'@'%'", []string{"REVOKE"}, []string{"GRANT"}},
		{"GRANT r TO 'bob'@'%'", []string{"GRANT", "GRANT_ROLE"}, nil},
		{"REVOKE r FROM 'bob'@'%'", []string{"REVOKE", "REVOKE_ROLE"}, nil},
		{"LOAD DATA INFILE '/var/lib/mysql-files/x.csv' INTO TABLE t", []string{"LOAD_DATA", "INSERT"}, []string{"LOAD_DATA_LOCAL"}},
		{"LOAD DATA LOCAL INFILE 'x.csv' REPLACE INTO TABLE t FIELDS TERMINATED BY ','", []string{"LOAD_DATA", "LOAD_DATA_LOCAL", "REPLACE"}, nil},
		{"CALL app.cleanup(1)", []string{"CALL"}, nil},
		{"DO SLEEP(1)", []string{"DO"}, nil},
		{"SET autocommit = 0", []string{"SET"}, []string{"SET_GLOBAL"}},
		{"SET NAMES utf8mb4", []string{"SET"}, nil},
		{"SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", []string{"SET"}, []string{"SET_GLOBAL"}},
		{"SET @x = 1", []string{"SET"}, []string{"SET_GLOBAL"}},
		{"SET GLOBAL read_only = 1", []string{"SET", "SET_GLOBAL"}, nil},
		{"SET @@global.max_connections = 10", []string{"SET_GLOBAL"}, nil},
		{"SET INSTANCE max_connections = 10", []string{"SET_GLOBAL"}, nil},
		{"SET PASSWORD FOR 'bob'@'%' = 'x'", []string{"SET", "SET_PASSWORD"}, nil},
		{"SET ROLE ALL", []string{"SET", "SET_ROLE"}, nil},
		{"START TRANSACTION", []string{"BEGIN"}, nil},
		{"START TRANSACTION READ ONLY", []string{"BEGIN"}, nil},
		{"BEGIN", []string{"BEGIN"}, nil},
		{"COMMIT", []string{"COMMIT"}, nil},
		{"ROLLBACK", []string{"ROLLBACK"}, []string{"ROLLBACK_TO"}},
		{"SAVEPOINT s1", []string{"SAVEPOINT"}, nil},
		{"ROLLBACK TO SAVEPOINT s1", []string{"ROLLBACK_TO"}, nil},
		{"RELEASE SAVEPOINT s1", []string{"RELEASE"}, nil},
		{"LOCK TABLES t WRITE, u READ", []string{"LOCK"}, nil},
		{"UNLOCK TABLES", []string{"UNLOCK"}, nil},
		{"FLUSH PRIVILEGES", []string{"FLUSH"}, []string{"LOCK"}},
		{"FLUSH TABLES WITH READ LOCK", []string{"FLUSH", "LOCK"}, nil},
		{"KILL 42", []string{"KILL"}, nil},
		{"USE other", []string{"USE"}, nil},
		{"ANALYZE TABLE t", []string{"ANALYZE"}, nil},
		{"OPTIMIZE TABLE t", []string{"OPTIMIZE"}, nil},
		{"SHUTDOWN", []string{"SHUTDOWN"}, nil},
		{"PREPARE s FROM 'DELETE FROM t WHERE id = ?'", []string{"PREPARE", "DELETE"}, nil},
		{"PREPARE s FROM @q", []string{"PREPARE", domain.ActionUnknown}, nil},
		{"EXECUTE s USING @a", []string{"EXECUTE"}, nil},
		{"DEALLOCATE PREPARE s", []string{"DEALLOCATE"}, nil},
		{"DROP PREPARE s", []string{"DEALLOCATE"}, nil},
		// ORMs and drivers
		{"SELECT `users`.`id`, `users`.`name` FROM `users` WHERE `users`.`deleted_at` IS NULL AND `users`.`id` = 1 ORDER BY `users`.`id` LIMIT 1", []string{"SELECT"}, nil},
		{"INSERT INTO `users` (`created_at`,`updated_at`,`name`) VALUES ('2026-01-01 00:00:00','2026-01-01 00:00:00','jinzhu') ON DUPLICATE KEY UPDATE `name`=VALUES(`name`)", []string{"INSERT", "UPDATE"}, nil},
		{"select u1_0.id,u1_0.name from users u1_0 where u1_0.id=?", []string{"SELECT"}, nil},
		{"SELECT `main`.`User`.`id` FROM `main`.`User` WHERE 1=1 LIMIT ? OFFSET ?", []string{"SELECT"}, nil},
		{"SELECT @@version_comment LIMIT 1", []string{"SELECT"}, nil},
		{"SELECT DATABASE(), USER()", []string{"SELECT"}, nil},
		{"SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()", []string{"SELECT"}, nil},
		// mysqldump
		{"/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */", []string{"SET"}, nil},
		{"/*!40103 SET TIME_ZONE='+00:00' */", []string{"SET"}, nil},
		{"/*!40000 ALTER TABLE `t` DISABLE KEYS */", []string{"ALTER", "ALTER_TABLE"}, nil},
		{"INSERT INTO `t` VALUES (1,'a\\'b','x\\\\y'),(2,'c',NULL)", []string{"INSERT"}, nil},
		{"/*!50001 CREATE ALGORITHM=UNDEFINED */ /*!50013 DEFINER=`root`@`localhost` SQL SECURITY DEFINER */ /*!50001 VIEW `v` AS select 1 AS `1` */", []string{"CREATE", "CREATE_VIEW"}, nil},
		{"/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */", []string{"SET"}, nil},
		{"/*!999999 DROP TABLE t */", []string{"DROP", "DROP_TABLE"}, nil},
		{"/*M!100100 DROP TABLE t */", []string{"DROP", "DROP_TABLE"}, nil},
	}
	for _, c := range cases {
		st := one(t, c.sql)
		has(t, c.sql, "actions", st.Analysis.Actions, c.want...)
		lacks(t, c.sql, "actions", st.Analysis.Actions, c.not...)
		for _, a := range st.Analysis.Actions {
			if !IsAction(a) {
				t.Errorf("%q reports %s, which Actions() lacks", c.sql, a)
			}
		}
	}
}

// Tables read as db.table with the current database for unqualified names
// and bare; databases bare and as db.*; functions lower case.
func TestTargetsAndFunctions(t *testing.T) {
	cases := []struct {
		sql, db                   string
		targets, functions, notTg []string
	}{
		{"SELECT * FROM users", "app", []string{"app.users", "users"}, nil, nil},
		{"SELECT * FROM users", "", []string{"users"}, nil, []string{".users"}},
		{"SELECT * FROM billing.invoices i JOIN users u ON u.id = i.uid", "app", []string{"billing.invoices", "invoices", "app.users", "users"}, nil, []string{"app.invoices"}},
		{"SELECT * FROM `weird name`.`t 1`", "app", []string{"weird name.t 1"}, nil, nil},
		{"DELETE FROM t WHERE id IN (SELECT id FROM other.u)", "app", []string{"app.t", "other.u"}, nil, nil},
		{"DROP DATABASE prod", "app", []string{"prod", "prod.*"}, nil, []string{"app.prod"}},
		{"GRANT SELECT ON prod.* TO 'bob'@'%'", "app", []string{"prod.*", "bob", "bob@%"}, nil, nil},
		{"GRANT SELECT ON prod.t TO bob", "app", []string{"prod.t"}, nil, nil},
		{"GRANT ALL ON *.* TO bob", "app", []string{"*.*"}, nil, nil},
		{"DROP USER 'bob'@'localhost'", "app", []string{"bob", "bob@localhost"}, nil, nil},
		{"USE prod", "app", []string{"prod"}, nil, nil},
		{"SELECT SLEEP(10)", "app", nil, []string{"sleep"}, nil},
		{"SELECT BENCHMARK(1000000, MD5('x'))", "app", nil, []string{"benchmark", "md5"}, nil},
		{"SELECT LOAD_FILE('/etc/passwd')", "app", nil, []string{"load_file"}, nil},
		{"SELECT GET_LOCK('x', 10), RELEASE_LOCK('x')", "app", nil, []string{"get_lock", "release_lock"}, nil},
		{"SELECT COUNT(*), MAX(a), ROW_NUMBER() OVER () FROM t", "app", []string{"app.t"}, []string{"count", "max", "row_number"}, nil},
		{"SELECT app2.f(1)", "app", nil, []string{"f", "app2.f"}, nil},
		{"CALL app.cleanup(1)", "app", nil, []string{"cleanup", "app.cleanup"}, nil},
		{"DO SLEEP(1)", "app", nil, []string{"sleep"}, nil},
		{"SET @x = SLEEP(1)", "app", nil, []string{"sleep"}, nil},
		{"UPDATE t SET a = 1 WHERE SLEEP(1) = 0", "app", []string{"app.t"}, []string{"sleep"}, nil},
	}
	for _, c := range cases {
		r := Analyze(c.sql, c.db)
		if r.Err != nil || len(r.Statements) != 1 {
			t.Fatalf("%q: %v %d", c.sql, r.Err, len(r.Statements))
		}
		a := r.Statements[0].Analysis
		has(t, c.sql, "targets", a.Targets, c.targets...)
		lacks(t, c.sql, "targets", a.Targets, c.notTg...)
		has(t, c.sql, "functions", a.Functions, c.functions...)
	}
}

// USE, KILL, LOAD DATA LOCAL and prepared statements carry what the
// listener's session acts on.
func TestSessionFields(t *testing.T) {
	if st := one(t, "USE `other db`"); st.UseDB != "other db" {
		t.Errorf("USE: %q", st.UseDB)
	}
	for sql, want := range map[string]Kill{
		"KILL QUERY 42":     {ID: 42, QueryOnly: true},
		"KILL 7":            {ID: 7},
		"KILL CONNECTION 8": {ID: 8},
		"kill query 9 -- x": {ID: 9, QueryOnly: true},
	} {
		st := one(t, sql)
		if st.Kill == nil || *st.Kill != want {
			t.Errorf("%q: %+v, want %+v", sql, st.Kill, want)
		}
	}
	if st := one(t, "LOAD DATA LOCAL INFILE '/tmp/x' INTO TABLE t"); !st.LoadLocal {
		t.Error("LOAD DATA LOCAL: LoadLocal unset")
	}
	if st := one(t, "LOAD DATA INFILE '/tmp/x' INTO TABLE t"); st.LoadLocal {
		t.Error("LOAD DATA (server file): LoadLocal set")
	}
	st := one(t, "PREPARE del FROM 'DELETE FROM t WHERE id = ?'")
	if st.Prepare == nil || st.Prepare.Name != "del" || !slices.Contains(st.Prepare.Analysis.Actions, "DELETE") || slices.Contains(st.Prepare.Analysis.Actions, "PREPARE") {
		t.Errorf("PREPARE: %+v", st.Prepare)
	}
	if st := one(t, "EXECUTE del USING @id"); st.Execute != "del" {
		t.Errorf("EXECUTE: %q", st.Execute)
	}
	if st := one(t, "DEALLOCATE PREPARE del"); st.Deallocate != "del" {
		t.Errorf("DEALLOCATE: %q", st.Deallocate)
	}
}

// One Statement per statement of a multi-statement text, each with its own
// text; empty texts have none.
func TestMultiStatements(t *testing.T) {
	r := Analyze("SELECT 1; DROP TABLE t;\n  UPDATE t SET a = 1 ;", "app")
	if r.Err != nil || len(r.Statements) != 3 {
		t.Fatalf("%v %+v", r.Err, r.Statements)
	}
	for i, want := range []string{"SELECT 1", "DROP TABLE t", "UPDATE t SET a = 1"} {
		if r.Statements[i].Text != want {
			t.Errorf("statement %d: %q, want %q", i, r.Statements[i].Text, want)
		}
	}
	has(t, "second", "actions", r.Statements[1].Analysis.Actions, "DROP_TABLE")
	r = Analyze("  /* c */ SELECT 1 ;; SELECT 2;", "app")
	if r.Err != nil || len(r.Statements) != 2 || r.Statements[1].Text != "SELECT 2" {
		t.Errorf("empty statements between: %v %+v", r.Err, r.Statements)
	}
	r = Analyze("USE a; SELECT * FROM t", "app")
	if r.Statements[0].UseDB != "a" {
		t.Errorf("USE in a multi-statement text: %+v", r.Statements[0])
	}
	for _, sql := range []string{"", ";", " ; ; ", "-- only a comment", "/* c */", "# c\n"} {
		if r := Analyze(sql, "app"); r.Err != nil || len(r.Statements) != 0 {
			t.Errorf("%q: %v %d statements", sql, r.Err, len(r.Statements))
		}
	}
}

// Executable comments are SQL to MySQL and MariaDB: what they run is
// analysed, whatever version they name; comments are not.
func TestExecutableComments(t *testing.T) {
	cases := []struct {
		sql  string
		want [][]string // actions per statement
	}{
		{"SELECT 1 /*!50000 ; DROP TABLE t */", [][]string{{"SELECT"}, {"DROP_TABLE"}}},
		{"SELECT 1 /*! ; DROP TABLE t */", [][]string{{"SELECT"}, {"DROP_TABLE"}}},
		{"SELECT 1 /*!100000 ; DROP TABLE t */", [][]string{{"SELECT"}, {"DROP_TABLE"}}},
		{"SELECT 1 /*M!100100 ; DROP TABLE t */", [][]string{{"SELECT"}, {"DROP_TABLE"}}},
		{"SELECT 1 /*M! ; DELETE FROM t */", [][]string{{"SELECT"}, {"DELETE"}}},
		{"/*!50000 DROP */ TABLE t", [][]string{{"DROP_TABLE"}}},
		{"SELECT 1 /* ; DROP TABLE t */", [][]string{{"SELECT"}}},
		{"SELECT 1 -- ; DROP TABLE t", [][]string{{"SELECT"}}},
		{"SELECT 1 # ; DROP TABLE t", [][]string{{"SELECT"}}},
		{"SELECT 1 /*+ ; DROP TABLE t */", [][]string{{"SELECT"}}},
		{"SELECT '/*!50000 ; DROP TABLE t */'", [][]string{{"SELECT"}}},
		{"SELECT `/*!50000 ; DROP TABLE t */`", [][]string{{"SELECT"}}},
		{"SELECT 1 /*! , (SELECT 2 /* inner */) */ ; DELETE FROM t", [][]string{{"SELECT"}, {"DELETE"}}},
		{"SELECT 1--1", [][]string{{"SELECT"}}}, // 1 - (-1): not a comment
	}
	for _, c := range cases {
		r := Analyze(c.sql, "app")
		if r.Err != nil || len(r.Statements) != len(c.want) {
			t.Errorf("%q: %v, %d statements, want %d", c.sql, r.Err, len(r.Statements), len(c.want))
			continue
		}
		for i, w := range c.want {
			has(t, c.sql, "actions", r.Statements[i].Analysis.Actions, w...)
		}
	}
	// Texts kept as sent.
	if st := one(t, "/*!40101 SET NAMES utf8mb4 */"); st.Text != "/*!40101 SET NAMES utf8mb4 */" {
		t.Errorf("text %q", st.Text)
	}
}

// Texts the parser refuses, or whose reading is in doubt, are one UNKNOWN
// statement with Err set: the listener holds them (fail closed).
func TestFailClosed(t *testing.T) {
	for _, sql := range []string{
		"DELETE FROM t WHERE id = 1 RETURNING *", // MariaDB
		"INSERT INTO t VALUES (1) RETURNING id",  // MariaDB
		"XA START 'x'", "XA END 'x'", "XA PREPARE 'x'", "XA COMMIT 'x'", "XA ROLLBACK 'x'",
		"HANDLER t OPEN", "HANDLER t READ FIRST", "HANDLER t CLOSE",
		"DROP TRIGGER tr", "DROP FUNCTION f", "DROP EVENT e",
		"SELECT 1; DELETE FROM t RETURNING *", // one refused statement refuses the text
		"SELECT 'unterminated",
		"SELECT 1 /* unterminated",
		"SELECT 1 /*!50000 ; DROP TABLE t",                     // unterminated executable comment
		"SELECT 1 /*!50000 /*! DROP TABLE t */ */",             // nested executable comment
		"SELECT 1 /*!50000 , (SELECT 2 /* c */) */ ; DELETE t", // skipped by an older server: ends at the inner */
		"SELECT 1 /*!99999 ' */ ; DROP TABLE t; -- '",          // skipped by an older server: ends elsewhere
		"SELECT 1 /*M! `*/ ; DROP TABLE t; -- ` */",            // MySQL skips /*M! as a comment
		"SELECT 'a\\'; DROP TABLE t; -- '",                     // NO_BACKSLASH_ESCAPES: two statements
		"SELECT \"a\\\"; DROP TABLE t; -- \"",                  // ANSI_QUOTES or NO_BACKSLASH_ESCAPES
		"SELECT a FROM t INTO DUMPFILE '/tmp/x'",               // the parser knows INTO OUTFILE only
		"SELECT a FROM t LIMIT 1 INTO @v",
		"SET PERSIST max_connections = 10", // MySQL 8
		"CHECK TABLE t", "CHECKSUM TABLE t", "CREATE OR REPLACE TABLE t (a INT)", "CHANGE MASTER TO MASTER_HOST = 'h'",
		"PURGE BINARY LOGS BEFORE NOW()", "INSTALL PLUGIN p SONAME 'p.so'", "RESET MASTER",
		"XA RECOVER", "START SLAVE", "STOP REPLICA", "UNINSTALL PLUGIN p", "SET PERSIST_ONLY max_connections = 10",
		"ALTER EVENT e DISABLE", "ALTER FUNCTION f COMMENT 'x'", "/*M!999999\\- enable the sandbox mode */",
		"garbage",
		// The parser reads these as fewer statements than the server
		// (it drops a lone @@, skips a lone byte 0x85 as a space): the
		// split check refuses them.
		"@@; DROP TABLE t", "\x85; DROP TABLE t",
	} {
		r := Analyze(sql, "app")
		if r.Err == nil || len(r.Statements) != 1 || !slices.Contains(r.Statements[0].Analysis.Actions, domain.ActionUnknown) || r.Statements[0].Text != sql {
			t.Errorf("%q: want one UNKNOWN statement and an error, got %v %+v", sql, r.Err, r.Statements)
		}
	}
	// The parser's value driver panics on some long decimal literals: the
	// text is refused like any other the parser cannot read, the process
	// lives on.
	long := "DELETE FROM t WHERE id = 0000000000000000000000000000000000000000000000000000000000000020000000000000000000"
	if r := Analyze(long, "app"); r.Err == nil || !slices.Contains(r.Statements[0].Analysis.Actions, "DELETE") {
		t.Errorf("long decimal: %v %+v", r.Err, r.Statements)
	}
	// A refused text is also named by its first keywords, so that a rule on
	// XA, HANDLER or DROP_TRIGGER holds it for a person.
	for sql, want := range map[string][]string{
		"XA START 'x'":                        {"XA"},
		"HANDLER t OPEN":                      {"HANDLER"},
		"DELETE FROM t RETURNING *":           {"DELETE"},
		"SELECT 1; DELETE FROM t RETURNING *": {"SELECT", "DELETE"},
		"DROP TRIGGER tr":                     {"DROP", "DROP_TRIGGER"},
		"CREATE OR REPLACE TABLE t (a INT)":   {"CREATE", "CREATE_TABLE"},
		"SET PERSIST max_connections = 10":    {"SET", "SET_GLOBAL"},
		"STOP REPLICA":                        {"REPLICATION"},
	} {
		r := Analyze(sql, "app")
		has(t, sql, "actions", r.Statements[0].Analysis.Actions, append(want, domain.ActionUnknown)...)
		for _, a := range r.Statements[0].Analysis.Actions {
			if !IsAction(a) {
				t.Errorf("%q: %s is not in Actions()", sql, a)
			}
		}
	}
	// Uncheckable texts are UNKNOWN only.
	if r := Analyze("SELECT 'a\\'; DROP TABLE t; -- '", "app"); !slices.Equal(r.Statements[0].Analysis.Actions, []string{domain.ActionUnknown}) {
		t.Errorf("uncheckable: %v", r.Statements[0].Analysis.Actions)
	}
	// Readings that differ only inside one statement add up.
	st := one(t, "SELECT 'a\\' FROM secret.t FOR UPDATE -- '")
	has(t, "FOR UPDATE under NO_BACKSLASH_ESCAPES", "actions", st.Analysis.Actions, "SELECT", "SELECT_FOR_UPDATE")
	has(t, "FROM under NO_BACKSLASH_ESCAPES", "targets", st.Analysis.Targets, "secret.t")
	st = one(t, "SELECT 'a\\', SLEEP(5) -- '")
	has(t, "sleep under NO_BACKSLASH_ESCAPES", "functions", st.Analysis.Functions, "sleep")
	// Escaped quotes, as drivers and mysqldump write them, still read.
	one(t, "INSERT INTO t VALUES ('it\\'s', \"say \\\"hi\\\"\")")
	// With the mode known, the text reads as that server reads it.
	r := AnalyzeMode("SELECT 'a\\'; DROP TABLE t; -- '", "app", Mode{NoBackslashEscapes: true})
	if r.Err != nil || len(r.Statements) != 2 || !slices.Contains(r.Statements[1].Analysis.Actions, "DROP_TABLE") {
		t.Errorf("NO_BACKSLASH_ESCAPES known: %v %+v", r.Err, r.Statements)
	}
	// Too large or too deep: uncheckable, which the listener refuses.
	for _, sql := range []string{
		"SELECT '" + strings.Repeat("x", MaxSize) + "'",
		"SELECT 1" + strings.Repeat(" + 1", MaxDepth+10),
		"SELECT " + strings.Repeat("(", MaxDepth+10) + "1" + strings.Repeat(")", MaxDepth+10),
		"DELETE FROM t WHERE a = 1" + strings.Repeat(" OR a = 1", MaxDepth+10),
	} {
		if r := Analyze(sql, "app"); !errors.Is(r.Err, ErrUncheckable) {
			t.Errorf("%.40s…: %v, want ErrUncheckable", sql, r.Err)
		}
	}
}

// PREPARE texts are analysed inside one another up to maxNesting levels;
// deeper is uncheckable.
func TestNestedPrepare(t *testing.T) {
	nest := func(n int) string {
		sql := "DELETE FROM t"
		for range n {
			sql = "PREPARE s FROM '" + strings.ReplaceAll(sql, "'", "''") + "'"
		}
		return sql
	}
	st := one(t, nest(3))
	has(t, "3 levels", "actions", st.Analysis.Actions, "PREPARE", "DELETE")
	if r := Analyze(nest(maxNesting+2), "app"); !errors.Is(r.Err, ErrUncheckable) {
		t.Errorf("%d levels: %v", maxNesting+2, r.Err)
	}
}

// The parser's statements start where the server's lexer splits the text;
// a disagreement is uncheckable (the parser's statements here are faked to
// miss the second one).
func TestSameSplit(t *testing.T) {
	sql := "SELECT 1; DROP TABLE t"
	l := lex(sql, Mode{})
	stmts, err := parseText(l.code, Mode{})
	if err != nil || len(stmts) != 2 {
		t.Fatalf("%v %d", err, len(stmts))
	}
	if err := sameSplit(l.toks, stmts); err != nil {
		t.Errorf("agreeing split: %v", err)
	}
	if err := sameSplit(l.toks, stmts[:1]); !errors.Is(err, ErrUncheckable) {
		t.Errorf("a statement the parser missed: %v", err)
	}
	one(t, "CREATE PROCEDURE p() BEGIN SELECT 1; DELETE FROM t; END")
}

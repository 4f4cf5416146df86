package differential

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	mysqlproto "github.com/hoophq/sidecar/adapters/inbound/mysql"
	myanalyzer "github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/ports"
)

// mysqlReadActions are the listener's actions its rules let through; every
// other action of the analyzer's vocabulary (every write and DDL kind,
// CALL, DO, UNKNOWN) is held.
var mysqlReadActions = []string{
	"SELECT", "SELECT_FOR_SHARE", "SELECT_FOR_UPDATE", "SHOW", "EXPLAIN", "SET", "USE", "BEGIN", "COMMIT",
	"ROLLBACK", "ROLLBACK_TO", "SAVEPOINT", "RELEASE", "HELP", "PREPARE", "EXECUTE", "DEALLOCATE",
}

// mariadbReadKinds are the EVENT_NAMEs (after statement/sql/) of those
// read actions in MariaDB's statement record; every other statement/sql/
// kind is a held kind. statement/com/ (the protocol's commands) and
// statement/sp/ (the inside of a procedure, which CALL reaches) are not.
var mariadbReadKinds = []string{
	"select", "set_option", "change_db", "begin", "commit", "rollback", "rollback_to_savepoint", "savepoint",
	"release_savepoint", "help", "prepare_sql", "execute_sql", "dealloc_sql", "error", "empty_query",
}

// explainText is a statement MariaDB records under the kind of what it
// explains (EXPLAIN DELETE is statement/sql/delete) though it runs nothing.
var explainText = regexp.MustCompile(`(?is)^(\s|/\*[^!M].*?\*/|/\*\*/)*(EXPLAIN|DESCRIBE|DESC)\s`)

func mariadbHeld(event, text string) bool {
	kind, ok := strings.CutPrefix(event, "statement/sql/")
	if !ok || slices.Contains(mariadbReadKinds, kind) || strings.HasPrefix(kind, "show") {
		return false
	}
	return !explainText.MatchString(text)
}

// TestMySQLDifferential sends generated texts through a mysql listener
// holding every write and DDL kind, in front of a private MariaDB whose
// performance_schema records each statement it executes, and fails when
// the record shows a held kind that ran (issue 32, "The check that finds
// the next one"). HOOP_DIFF_DURATION sets how long (default 60s).
func TestMySQLDifferential(t *testing.T) {
	t.Parallel()
	m := startMariaDB(t, 50000)
	tg := &mysqlTarget{m: m, seeds: append(corpus(t, "adapters/inbound/mysql/analyzer/testdata/fuzz/FuzzAnalyze"), mysqlSeeds...)}
	var held []string
	for _, a := range myanalyzer.Actions() {
		if !slices.Contains(mysqlReadActions, a) {
			held = append(held, a)
		}
	}
	s := app.ListenerSettings{Name: "differential", Protocol: "mysql", Mode: app.ModeReturn, SpendOn: ports.SpendOnSent,
		Upstream:  m.addr,
		Approvals: []domain.ApprovalRule{{Name: "every-write-and-ddl", Match: domain.Match{Actions: held}}}}
	if err := s.Approvals[0].Match.Compile(); err != nil {
		t.Fatal(err)
	}
	l := listenertest.NewCore(fakecp.New(nil), app.Limits{}).Listener(s)
	tg.addr = listenertest.Serve(t, mysqlproto.New(nil), l)
	for w := range workers {
		user := fmt.Sprintf("differential_w%d", w)
		for _, q := range []string{
			"CREATE USER " + user + "@'%'",
			"GRANT ALL ON " + user + ".* TO " + user + "@'%'",
			"INSERT INTO performance_schema.setup_actors VALUES ('%','" + user + "','%','YES','YES')",
		} {
			if _, err := m.admin.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		tg.reset(t, w)
	}
	runDifferential(t, "mysql (MariaDB "+m.version(t)+")", tg)
}

// mysqlSeeds are texts of earlier bypass reports and the analyzer's fuzz
// seeds, beside the corpus files.
var mysqlSeeds = []string{
	"SELECT 1; DROP TABLE victim", "SELECT 1 /*!50000 ; DROP TABLE victim */", "SELECT 1 /*M!100100 , 2 */",
	"SELECT 'a\\'; DROP TABLE victim; -- '", "PREPARE s FROM 'PREPARE t FROM ''DELETE FROM t'''", "DELETE FROM t RETURNING *",
	"SELECT 1 -- x\n; SELECT 2 # y", "SELECT 1--1", "SELECT 1 --\x01x", "SELECT 1 --\xa0 /*\n; DELETE FROM t; DROP TABLE victim; SELECT 2 --\xa0 */",
	"SET NAMES gbk;SELECT 1 AS `a\x95`, 2 AS `;DELETE FROM t;-- `", "SELECT 'a\x80\\';DELETE FROM t;#'",
	"SET sql_mode='ANSI_QUOTES'; DELETE FROM \"t\" WHERE id=1",
}

type mysqlTarget struct {
	m     *mariadb
	addr  string // the listener
	seeds []string
	last  [workers]testCase
	base  [workers]string // each worker's state after its reset (state)
}

// state is what a held statement would change in worker w's database: its
// tables and columns, its routines, and the rows of t. It is the oracle for
// what the statement record leaves out: a statement prepared with
// COM_STMT_PREPARE is recorded only as statement/com/Execute, and EXECUTE
// only as execute_sql, without the kind of what they ran.
func (tg *mysqlTarget) state(t *testing.T, w int) string {
	db := workerName(w)
	var cols, routines, rows sql.NullString
	q := "SELECT (SELECT GROUP_CONCAT(TABLE_NAME, '.', COLUMN_NAME ORDER BY TABLE_NAME, COLUMN_NAME) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA=?)," +
		" (SELECT GROUP_CONCAT(ROUTINE_NAME ORDER BY ROUTINE_NAME) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA=?)," +
		" (SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME=?)"
	if err := tg.m.admin.QueryRow(q, db, db, db).Scan(&cols, &routines, &rows); err != nil {
		t.Fatal(err)
	}
	var content string
	if err := tg.m.admin.QueryRow("SELECT CONCAT(COUNT(*), ':', IFNULL(SUM(CRC32(CONCAT_WS(',', id, v))), 0)) FROM " + db + ".t").Scan(&content); err != nil {
		content = "t unreadable"
	}
	return fmt.Sprintf("database %s; columns %s; routines %s; t %s", rows.String, cols.String, routines.String, content)
}

func (m *mariadb) version(t *testing.T) string {
	var v string
	if err := m.admin.QueryRow("SELECT VERSION()").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func (tg *mysqlTarget) generate(r *rand.Rand) testCase { return genMySQL(r, tg.seeds) }

func (tg *mysqlTarget) known(c testCase) string { return knownMySQL(c) }

func workerName(w int) string { return fmt.Sprintf("differential_w%d", w) }

// reset drops and re-creates worker w's database: table t with two rows,
// table victim and procedure p (a DELETE that matches no row).
func (tg *mysqlTarget) reset(t *testing.T, w int) {
	db := workerName(w)
	for _, q := range []string{
		"DROP DATABASE IF EXISTS " + db,
		"CREATE DATABASE " + db,
		"CREATE TABLE " + db + ".t (id INT PRIMARY KEY, v VARCHAR(20))",
		"INSERT INTO " + db + ".t VALUES (1,'a'),(2,'b')",
		"CREATE TABLE " + db + ".victim (id INT)",
		"CREATE PROCEDURE " + db + ".p() DELETE FROM " + db + ".t WHERE id=0",
	} {
		if _, err := tg.m.admin.Exec(q); err != nil {
			t.Errorf("reset %s: %s: %v", db, q, err)
		}
	}
	tg.base[w] = tg.state(t, w)
}

// listenerReadingQuery is what the mysql listener asks the server at login
// and after a text that may change the session's character set or sql_mode
// (charset.go of the listener, readingQuery).
const listenerReadingQuery = "SELECT @@character_set_client, @@sql_mode"

// listenerCodes are the errors the mysql listener answers with itself
// (held 1227, policy 1142, uncheckable 1235, unavailable 1290, no memory
// 1041; errors.go of the listener).
var listenerCodes = []uint16{1227, 1142, 1235, 1290, 1041}

func (tg *mysqlTarget) through(t *testing.T, w int, c testCase) outcome {
	o := tg.send(t, w, tg.addr, c)
	var me *mysql.MySQLError
	if o.Err != "" && len(o.Records) == 0 && errors.As(o.err, &me) && slices.Contains(listenerCodes, me.Number) {
		o.Refused = true
	}
	return o.outcome
}

func (tg *mysqlTarget) direct(t *testing.T, w int, c testCase) outcome {
	return tg.send(t, w, tg.m.addr, c).outcome
}

type mysqlOutcome struct {
	outcome
	err error
}

// send runs c in a new session of worker w's login at addr (the listener
// or the server), ends the session, waits for the server to end its
// thread, and reads that thread's statement record.
func (tg *mysqlTarget) send(t *testing.T, w int, addr string, c testCase) mysqlOutcome {
	user := workerName(w)
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = user, "tcp", addr, user
	cfg.MultiStatements, cfg.InterpolateParams = true, false
	cfg.Collation = c.Session
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 10*time.Second, 20*time.Second, 20*time.Second
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxIdleConns(0) // the session ends when the text is done
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sc, err := db.Conn(ctx)
	if err != nil {
		t.Errorf("connect %s as %s: %v; %s; the worker's text before: %s", addr, user, err, c, tg.last[w])
		return mysqlOutcome{outcome: outcome{Err: err.Error()}, err: err}
	}
	tg.last[w] = c
	thread := tg.thread(t, user)
	q := fill(c.SQL, user)
	if c.Via == "prepare" {
		var st *sql.Stmt
		if st, err = sc.PrepareContext(ctx, q); err == nil {
			_, err = st.ExecContext(ctx)
			st.Close()
		}
	} else {
		_, err = sc.ExecContext(ctx, q)
	}
	sc.Close()
	db.Close()
	o := mysqlOutcome{err: err}
	if err != nil {
		o.Err = err.Error()
	}
	tg.waitGone(t, thread)
	rows, qerr := tg.m.admin.Query("SELECT EVENT_NAME, IFNULL(SQL_TEXT,'') FROM performance_schema.events_statements_history_long WHERE THREAD_ID=? ORDER BY EVENT_ID", thread)
	if qerr != nil {
		t.Fatal(qerr)
	}
	defer rows.Close()
	for rows.Next() {
		var r record
		if err := rows.Scan(&r.Kind, &r.Text); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(r.Kind, "statement/sql/") && !strings.HasPrefix(r.Kind, "statement/sp/") {
			continue // the protocol's own commands (Quit, Prepare, Execute…)
		}
		if r.Text == listenerReadingQuery {
			continue // the listener asking the session's reading, not the client's text
		}
		r.Held = mariadbHeld(r.Kind, r.Text)
		o.Records = append(o.Records, r)
	}
	if now := tg.state(t, w); now != tg.base[w] && len(o.held()) == 0 {
		o.Records = append(o.Records, record{Kind: "a change of the database (" + c.Via + ")", Text: now, Held: true})
	}
	return o
}

// thread returns the performance_schema thread of user's one session,
// polling until the server lists it (the listener logs in upstream when
// the client logs in).
func (tg *mysqlTarget) thread(t *testing.T, user string) int64 {
	deadline := time.Now().Add(20 * time.Second)
	for {
		var id int64
		err := tg.m.admin.QueryRow("SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_USER=? ORDER BY THREAD_ID DESC LIMIT 1", user).Scan(&id)
		if err == nil {
			return id
		}
		if time.Now().After(deadline) {
			t.Fatalf("no server thread for %s: %v", user, err)
		}
		time.Sleep(2 * time.Millisecond) // polling the server for an event: the bound above ends a hang
	}
}

// waitGone polls until thread has ended, so its record is complete.
func (tg *mysqlTarget) waitGone(t *testing.T, thread int64) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := tg.m.admin.QueryRow("SELECT COUNT(*) FROM performance_schema.threads WHERE THREAD_ID=?", thread).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("server thread %d still there 30 s after its client hung up", thread)
		}
		time.Sleep(2 * time.Millisecond) // polling the server for an event: the bound above ends a hang
	}
}

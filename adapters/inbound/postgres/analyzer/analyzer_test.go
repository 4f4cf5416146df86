package analyzer

import (
	"fmt"
	"slices"
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
	r := Analyze(sql)
	if r.Err != nil {
		t.Fatalf("%q: %v", sql, r.Err)
	}
	if len(r.Statements) != 1 {
		t.Fatalf("%q: %d statements", sql, len(r.Statements))
	}
	return r.Statements[0]
}

func TestActions(t *testing.T) {
	cases := []struct {
		sql  string
		want []string
		not  []string
	}{
		{"SELECT 1", []string{"SELECT"}, []string{"DELETE", "SELECT_INTO"}},
		{"WITH d AS (DELETE FROM t WHERE id = 1 RETURNING *) SELECT * FROM d", []string{"DELETE", "SELECT"}, nil},
		{"WITH x AS (SELECT 1) UPDATE t SET a = 1", []string{"UPDATE"}, []string{"DELETE"}},
		{"SELECT * INTO newt FROM t", []string{"SELECT_INTO", "CREATE", "CREATE_TABLE"}, nil},
		{"CREATE TABLE n AS SELECT * FROM t", []string{"CREATE", "CREATE_TABLE", "SELECT"}, []string{"SELECT_INTO"}},
		{"CREATE MATERIALIZED VIEW mv AS SELECT 1", []string{"CREATE", "CREATE_MATERIALIZED_VIEW"}, nil},
		{"DO $$ BEGIN DELETE FROM t; END $$", []string{"DO"}, nil},
		{"CALL cleanup(1)", []string{"CALL"}, nil},
		{"DROP TABLE t", []string{"DROP", "DROP_TABLE"}, []string{"DROP_DATABASE"}},
		{"DROP TABLE IF EXISTS a, s.b CASCADE", []string{"DROP", "DROP_TABLE"}, nil},
		{"DROP DATABASE prod", []string{"DROP", "DROP_DATABASE"}, []string{"DROP_TABLE"}},
		{"DROP INDEX i", []string{"DROP", "DROP_INDEX"}, nil},
		{"DROP SCHEMA s CASCADE", []string{"DROP", "DROP_SCHEMA"}, nil},
		{"DROP MATERIALIZED VIEW mv", []string{"DROP_MATERIALIZED_VIEW"}, nil},
		{"DROP FUNCTION f(int)", []string{"DROP", "DROP_FUNCTION"}, nil},
		{"DROP ROLE r", []string{"DROP", "DROP_ROLE"}, nil},
		{"TRUNCATE t", []string{"TRUNCATE"}, nil},
		{"CREATE TABLE t (id int)", []string{"CREATE", "CREATE_TABLE"}, nil},
		{"CREATE INDEX ON t (id)", []string{"CREATE", "CREATE_INDEX"}, nil},
		{"CREATE DATABASE d", []string{"CREATE", "CREATE_DATABASE"}, nil},
		{"CREATE EXTENSION pgcrypto", []string{"CREATE", "CREATE_EXTENSION"}, nil},
		{"CREATE PROCEDURE p() LANGUAGE sql AS 'SELECT 1'", []string{"CREATE", "CREATE_PROCEDURE"}, nil},
		{"ALTER TABLE t DROP COLUMN a", []string{"ALTER", "ALTER_TABLE"}, []string{"DROP"}},
		{"ALTER TABLE t RENAME TO u", []string{"ALTER", "ALTER_TABLE", "RENAME"}, nil},
		{"ALTER SYSTEM SET work_mem = '1GB'", []string{"ALTER", "ALTER_SYSTEM"}, nil},
		{"GRANT SELECT ON t TO bob", []string{"GRANT"}, []string{"REVOKE"}},
		{"REVOKE ALL ON t FROM bob", []string{"REVOKE"}, []string{"GRANT"}},
		{"GRANT admin TO bob", []string{"GRANT", "GRANT_ROLE"}, nil},
		{"INSERT INTO t VALUES (1)", []string{"INSERT"}, []string{"UPDATE"}},
		{"INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET a = 2", []string{"INSERT", "UPDATE"}, nil},
		{"UPDATE t SET a = 1", []string{"UPDATE"}, nil},
		{"DELETE FROM t WHERE id = $1", []string{"DELETE"}, nil},
		{"MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE", []string{"MERGE", "DELETE"}, nil},
		{"COPY t FROM STDIN", []string{"COPY", "COPY_FROM"}, []string{"COPY_TO"}},
		{"COPY (SELECT * FROM t) TO STDOUT", []string{"COPY", "COPY_TO", "SELECT"}, nil},
		{"COPY t TO PROGRAM 'cat'", []string{"COPY", "COPY_TO", "COPY_PROGRAM"}, nil},
		{"EXPLAIN DELETE FROM t", []string{"EXPLAIN"}, []string{"DELETE"}},
		{"EXPLAIN ANALYZE DELETE FROM t", []string{"EXPLAIN", "DELETE"}, nil},
		{"EXPLAIN (ANALYZE false) DELETE FROM t", []string{"EXPLAIN"}, []string{"DELETE"}},
		{"EXPLAIN (ANALYZE, BUFFERS) DELETE FROM t", []string{"EXPLAIN", "DELETE"}, nil},
		// PostgreSQL takes the last ANALYZE option given.
		{"EXPLAIN (ANALYZE false, ANALYZE true) DELETE FROM t", []string{"EXPLAIN", "DELETE"}, nil},
		{"EXPLAIN (ANALYZE off, VERBOSE, ANALYZE) DELETE FROM t", []string{"EXPLAIN", "DELETE"}, nil},
		{"EXPLAIN (ANALYZE true, ANALYZE false) DELETE FROM t", []string{"EXPLAIN"}, []string{"DELETE"}},
		{"BEGIN", []string{"BEGIN"}, nil},
		{"START TRANSACTION", []string{"BEGIN"}, nil},
		{"COMMIT", []string{"COMMIT"}, nil},
		{"ROLLBACK", []string{"ROLLBACK"}, nil},
		{"SET search_path = x", []string{"SET"}, nil},
		{"RESET ALL", []string{"RESET"}, nil},
		{"SHOW work_mem", []string{"SHOW"}, nil},
		{"VACUUM t", []string{"VACUUM"}, nil},
		{"ANALYZE t", []string{"ANALYZE"}, []string{"VACUUM"}},
		{"CHECKPOINT", []string{"CHECKPOINT"}, nil},
		{"REFRESH MATERIALIZED VIEW mv", []string{"REFRESH_MATERIALIZED_VIEW"}, nil},
		{"LOCK TABLE t", []string{"LOCK"}, nil},
		{"DECLARE c CURSOR FOR SELECT 1", []string{"DECLARE_CURSOR", "SELECT"}, nil},
		{"EXECUTE p(1)", []string{"EXECUTE"}, nil},
	}
	for _, c := range cases {
		st := one(t, c.sql)
		has(t, c.sql, "actions", st.Analysis.Actions, c.want...)
		lacks(t, c.sql, "actions", st.Analysis.Actions, c.not...)
	}
}

func TestTargets(t *testing.T) {
	st := one(t, "DELETE FROM public.accounts a USING other o WHERE a.id = o.id")
	has(t, "delete", "targets", st.Analysis.Targets, "public.accounts", "accounts", "other", "public.other")
	st = one(t, "DROP TABLE t")
	has(t, "drop t", "targets", st.Analysis.Targets, "t", "public.t")
	st = one(t, "DROP TABLE billing.invoices")
	has(t, "drop s.t", "targets", st.Analysis.Targets, "billing.invoices", "invoices")
	lacks(t, "drop s.t", "targets", st.Analysis.Targets, "public.invoices")
	st = one(t, "TRUNCATE db.s.t")
	has(t, "truncate", "targets", st.Analysis.Targets, "db.s.t", "s.t", "t")
	st = one(t, "DROP DATABASE prod")
	has(t, "dropdb", "targets", st.Analysis.Targets, "prod")
}

func TestFunctions(t *testing.T) {
	st := one(t, "SELECT pg_catalog.pg_terminate_backend(pid) FROM pg_stat_activity")
	has(t, "terminate", "functions", st.Analysis.Functions, "pg_catalog.pg_terminate_backend", "pg_terminate_backend")
	st = one(t, "SELECT nextval('s'), lower('A')")
	has(t, "nextval", "functions", st.Analysis.Functions, "nextval", "lower")
	st = one(t, "SELECT * FROM dblink_exec('x', 'DELETE FROM t')")
	has(t, "dblink", "functions", st.Analysis.Functions, "dblink_exec")
	st = one(t, "CALL maint.cleanup(1)")
	has(t, "call", "functions", st.Analysis.Functions, "maint.cleanup", "cleanup")
	st = one(t, "SELECT 1")
	if len(st.Analysis.Functions) != 0 {
		t.Errorf("SELECT 1 functions %v", st.Analysis.Functions)
	}
}

func TestSeveralStatementsAndErrors(t *testing.T) {
	r := Analyze("SELECT 1; DROP TABLE t; INSERT INTO u VALUES (1)")
	if r.Err != nil || len(r.Statements) != 3 {
		t.Fatalf("got %d statements, err %v", len(r.Statements), r.Err)
	}
	has(t, "2nd", "actions", r.Statements[1].Analysis.Actions, "DROP_TABLE")
	if r.Statements[1].Text != "DROP TABLE t" || r.Statements[2].Text != "INSERT INTO u VALUES (1)" {
		t.Errorf("statement texts %q, %q", r.Statements[1].Text, r.Statements[2].Text)
	}
	lacks(t, "1st", "actions", r.Statements[0].Analysis.Actions, "DROP")

	r = Analyze("DELET FROM t")
	if r.Err == nil || len(r.Statements) != 1 || r.Statements[0].Analysis.Actions[0] != domain.ActionUnknown {
		t.Fatalf("parse error not reported as UNKNOWN: %+v", r)
	}
	r = Analyze(" ; -- nothing\n")
	if r.Err != nil || len(r.Statements) != 0 {
		t.Fatalf("empty text: %+v", r)
	}
}

func TestPrepareExecuteDeallocate(t *testing.T) {
	st := one(t, "PREPARE d(int) AS DELETE FROM t WHERE id = $1")
	if st.Prepare == nil || st.Prepare.Name != "d" {
		t.Fatalf("prepare: %+v", st)
	}
	has(t, "prepare", "actions", st.Analysis.Actions, "PREPARE")
	lacks(t, "prepare", "actions", st.Analysis.Actions, "DELETE")
	has(t, "prepared query", "actions", st.Prepare.Analysis.Actions, "DELETE")
	if st := one(t, "EXECUTE d(7)"); st.Execute != "d" {
		t.Fatalf("execute: %+v", st)
	}
	if st := one(t, "DEALLOCATE d"); st.Deallocate != "d" || st.DeallocateAll {
		t.Fatalf("deallocate: %+v", st)
	}
	if st := one(t, "DEALLOCATE ALL"); !st.DeallocateAll {
		t.Fatalf("deallocate all: %+v", st)
	}
}

// The cache is bounded in bytes: texts past the bound evict the oldest, and
// the kept results' estimated sizes stay within it.
func TestCache(t *testing.T) {
	c := newCache(32 << 10)
	a := c.Analyze("DROP TABLE t")
	b := c.Analyze("DROP TABLE t")
	if !slices.Equal(a.Statements[0].Analysis.Actions, b.Statements[0].Analysis.Actions) {
		t.Fatal("cached result differs")
	}
	for i := range 500 {
		c.Analyze(fmt.Sprintf("CREATE TABLE t%d (a int)", i)) // no shape: one entry each
		if n := c.entries.Bytes(); n > 32<<10 {
			t.Fatalf("after %d texts the cache holds %d bytes, over its bound of %d", i+1, n, 32<<10)
		}
	}
	if _, ok := c.entries.Get("DROP TABLE t"); ok {
		t.Fatal("least recently used entry was kept")
	}
	if n := c.entries.Len(); n < 20 || n == 501 {
		t.Fatalf("cache holds %d entries", n)
	}
}

func TestShapeKey(t *testing.T) {
	same := [][2]string{
		{"SELECT abalance FROM pgbench_accounts WHERE aid = 1;", "SELECT abalance FROM pgbench_accounts WHERE aid = 98765;"},
		{"SELECT * FROM t WHERE a = 'x' AND b = 1.5", "SELECT * FROM t WHERE a = 'it''s' /* c */ AND b = 2e10 -- d\n"},
		{"INSERT INTO t VALUES (1, 'a')", "INSERT INTO t VALUES (2, E'b\\n')"},
	}
	for _, p := range same {
		a, oka := shapeKey(p[0])
		b, okb := shapeKey(p[1])
		if !oka || !okb || a != b {
			t.Errorf("%q and %q must share a shape (%v %v)", p[0], p[1], oka, okb)
		}
	}
	differ := [][2]string{
		{"SELECT * FROM t WHERE a = 1", "SELECT * FROM u WHERE a = 1"},
		{"SELECT lower('a')", "SELECT upper('a')"},
		{"SELECT 'a' FROM t", "SELECT a FROM t"},
		{"SELECT * FROM t WHERE a = '1'", "SELECT * FROM t WHERE a = 1"},
	}
	for _, p := range differ {
		a, _ := shapeKey(p[0])
		b, _ := shapeKey(p[1])
		if a == b {
			t.Errorf("%q and %q must not share a shape", p[0], p[1])
		}
	}
	for _, sql := range []string{
		"EXPLAIN (ANALYZE 'false') DELETE FROM t",
		"SELECT 1; DROP TABLE t",
		"SELECT 'a\\'; DROP TABLE t; --'",
		"DROP TABLE t",
		"PREPARE p AS SELECT 1",
		"",
		"SELECT 'unterminated",
		// The UESCAPE constant decides what a U& identifier names.
		`DELETE FROM U&"secre#0074" UESCAPE '#'`,
	} {
		if _, ok := shapeKey(sql); ok {
			t.Errorf("%q must be keyed by its exact text only", sql)
		}
	}
}

func TestCacheByShapeKeepsOwnText(t *testing.T) {
	c := NewCache()
	c.Analyze("SELECT * FROM t WHERE id = 1")
	r := c.Analyze("SELECT * FROM t WHERE id = 2")
	if r.Statements[0].Text != "SELECT * FROM t WHERE id = 2" {
		t.Fatalf("text %q", r.Statements[0].Text)
	}
	if c.entries.Len() != 2 { // the first text and its shape
		t.Fatalf("%d entries", c.entries.Len())
	}
	// EXPLAIN options are constants that matter: never shared.
	a := c.Analyze("EXPLAIN (ANALYZE 'false') DELETE FROM t")
	b := c.Analyze("EXPLAIN (ANALYZE 'true') DELETE FROM t")
	if slices.Contains(a.Statements[0].Analysis.Actions, "DELETE") || !slices.Contains(b.Statements[0].Analysis.Actions, "DELETE") {
		t.Fatalf("EXPLAIN ANALYZE option: %v / %v", a.Statements[0].Analysis.Actions, b.Statements[0].Analysis.Actions)
	}
}

// A text shaped like one cached before must not take its relation names
// when a constant decides them (UESCAPE).
func TestCacheUescapeNamesItsOwnRelation(t *testing.T) {
	c := NewCache()
	c.Analyze(`DELETE FROM U&"secre#0074" UESCAPE '!'`)
	r := c.Analyze(`DELETE FROM U&"secre#0074" UESCAPE '#'`)
	if !slices.Contains(r.Statements[0].Analysis.Targets, "public.secret") {
		t.Fatalf("targets %v, want public.secret", r.Statements[0].Analysis.Targets)
	}
}

func TestLexicalRisk(t *testing.T) {
	cases := []struct {
		sql       string
		plain, mb bool
	}{
		{"SELECT 'a'", false, false},
		{"SELECT 'é'", false, false},
		{"SELECT E'a\\nb'", false, false},
		{"SELECT 'C:\\path'", true, false},
		{"SELECT 'a\\'' ; DROP TABLE t; --'", true, false},
		{"SELECT E'\x95\\' ; DROP TABLE t; --'", false, true},
		{"SELECT $$a\\b$$", false, false},
	}
	for _, c := range cases {
		r := LexicalRisk(c.sql)
		if r.PlainStringBackslash != c.plain || r.MultibyteBackslash != c.mb {
			t.Errorf("%q: %+v, want plain=%v multibyte=%v", c.sql, r, c.plain, c.mb)
		}
	}
}

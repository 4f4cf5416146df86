package mysqlconf

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// In GBK, SJIS, BIG5 or CP932 a byte 0x81–0xFE followed by a backtick
// (0x60) or a backslash (0x5C) is one character: after SET NAMES gbk (or a
// login in gbk) the server reads `a<0x95>`, 2 AS ` as one quoted name and
// then runs DELETE FROM t, which a reading that keeps every ASCII byte a
// character takes for the inside of a quoted name. Such texts must not run
// unchecked; in a utf8mb4 session a name ending in a non-ASCII letter
// still runs.
func TestMultiByteCharsetCannotHideAStatement(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.direct("CREATE TABLE t (id int); INSERT INTO t VALUES (1), (2)")
	ctx := context.Background()
	const attack = "SELECT 1 AS `a\x95`, 2 AS `; DELETE FROM t; -- `"
	try := func(how string, c *sql.Conn) {
		rows, err := c.QueryContext(ctx, attack)
		if err == nil {
			for rows.Next() {
			}
			rows.Close()
		}
		if n := e.count("SELECT count(*) FROM t"); n != 2 {
			t.Fatalf("%s: a DELETE hidden by a multi-byte character ran unchecked (%d rows left, %v)", how, n, err)
		}
		heldID(t, err) // the suite's rule names UNKNOWN: held for a person
	}
	c := e.conn(addr, "", nil)
	var one int
	if err := c.QueryRowContext(ctx, "SELECT 1 AS `名`").Scan(&one); err != nil {
		t.Fatalf("utf8mb4 session, a quoted name ending in a non-ASCII letter: %v", err)
	}
	if _, err := c.ExecContext(ctx, "SET NAMES gbk"); err != nil {
		t.Fatal(err)
	}
	try("SET NAMES gbk", c)
	try("login in gbk", e.conn(addr, "", func(cfg *mysql.Config) { cfg.Collation = "gbk_chinese_ci" }))
}

// A multi-statement text runs its statements until the first error, so a
// USE before a failing statement changes the database although the text
// failed. The approver must see the database a held statement runs on,
// not the one before the failed text.
func TestUseInAFailedTextStillMovesTheDatabase(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	other := e.db + "_b"
	e.direct("CREATE TABLE t (id int)")
	e.direct("CREATE DATABASE " + other)
	t.Cleanup(func() { e.adminExec("DROP DATABASE IF EXISTS " + other) })
	e.direct("CREATE TABLE " + other + ".t (id int)")
	ctx := context.Background()
	c := e.conn(addr, "", nil)
	if _, err := c.ExecContext(ctx, "USE "+other+"; SELECT * FROM no_such_table"); err == nil {
		t.Fatal("the text with a missing table did not fail")
	}
	_, err := c.ExecContext(ctx, "DELETE FROM t")
	id := heldID(t, err)
	if r := e.cp.Review(t, id); !strings.Contains(r.Statement, "-- database: "+other) {
		t.Fatalf("the approver sees the wrong database for a DELETE that runs on %s: %q", other, r.Statement)
	}
}

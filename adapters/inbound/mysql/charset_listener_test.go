package mysql

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// realListener serves a return-mode mysql listener in front of the local
// MariaDB with one approval rule, match, on a fresh database named
// charset_<random> (dropped at the end), and returns the listener's address,
// the fake Control Plane and the database.
func realListener(t *testing.T, match domain.Match) (addr string, cp *fakecp.CP, dbName string) {
	t.Helper()
	admin := localMariaDB(t, func(c *mysql.Config) { c.MultiStatements = true })
	b := make([]byte, 4)
	rand.Read(b)
	dbName = "charset_" + hex.EncodeToString(b)
	if _, err := admin.Exec("CREATE DATABASE " + dbName); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec("DROP DATABASE IF EXISTS " + dbName) })
	if err := match.Compile(); err != nil {
		t.Fatal(err)
	}
	s := app.ListenerSettings{Name: "charset", Protocol: "mysql", Mode: app.ModeReturn, SpendOn: ports.SpendOnSent, Upstream: "127.0.0.1:3306",
		Approvals: []domain.ApprovalRule{{Name: "held", Match: match}}}
	cp = fakecp.New(nil)
	l := app.NewCore(app.CoreOptions{Sidecar: "unit", CP: cp}).Listener(s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); New(nil).Serve(ctx, ln, l) }()
	t.Cleanup(func() { cancel(); l.EndDrain(); <-done })
	return ln.Addr().String(), cp, dbName
}

// rootConn is one go-sql-driver session as root through addr on database
// db, multi-statement texts allowed, with the given collation ("" the
// driver's utf8mb4 default).
func rootConn(t *testing.T, addr, db, collation string) *sql.Conn {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName, cfg.MultiStatements = "root", "tcp", addr, db, true
	if collation != "" {
		cfg.Collation = collation
	}
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pool := sql.OpenDB(c)
	t.Cleanup(func() { pool.Close() })
	conn, err := pool.Conn(context.Background())
	if err != nil {
		t.Fatalf("login through the listener (collation %q): %v", collation, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// The texts of issue 32, point 1, sent as one COM_QUERY each through
// go-sql-driver: "--" then a byte the session's character set reads as
// whitespace or a control character starts a comment to the end of the
// line, so the server runs the DELETE and DROP the next line holds; and a
// SET NAMES gbk earlier in the same text makes a backtick the second byte
// of a character. With a rule holding DELETE and DROP, nothing may run:
// t keeps its rows and victim exists. The same session then still runs
// what it may (0xA0 inside a quoted name).
func TestCharsetCommentTricksRunNothing(t *testing.T) {
	addr, cp, db := realListener(t, domain.Match{Actions: []string{"DELETE", "DROP"}})
	admin := localMariaDB(t, func(c *mysql.Config) { c.DBName, c.MultiStatements = db, true })
	dash := func(b byte) string {
		return "SELECT 1 --" + string([]byte{b}) + " /*\n; DELETE FROM t; DROP TABLE victim; SELECT 2 --" + string([]byte{b}) + " */"
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name, collation, setNames, text string
	}{
		{"latin1 login", "latin1_swedish_ci", "", dash(0xa0)},
		{"utf8mb4 login, SET NAMES latin1", "", "SET NAMES latin1", dash(0xa0)},
		{"cp1250 login, 0x81", "cp1250_general_ci", "", dash(0x81)},
		{"latin7 login, 0x81", "latin7_general_ci", "", dash(0x81)},
		{"cp850 login, 0xFF", "cp850_general_ci", "", dash(0xff)},
		{"macroman login, 0x80", "macroman_general_ci", "", dash(0x80)},
		{"hp8 login, 0xA0", "hp8_english_ci", "", dash(0xa0)},
		{"hebrew login, 0xFD", "hebrew_general_ci", "", dash(0xfd)},
		{"cp866 login, 0xFF", "cp866_general_ci", "", dash(0xff)},
		{"SET NAMES gbk in the same text", "", "", "SET NAMES gbk;SELECT 1 AS `a\x95`, 2 AS `;DELETE FROM t;-- `"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := admin.Exec("DROP TABLE IF EXISTS t, victim; CREATE TABLE t (id int); INSERT INTO t VALUES (1), (2), (3); CREATE TABLE victim (id int)"); err != nil {
				t.Fatal(err)
			}
			c := rootConn(t, addr, db, tc.collation)
			if tc.setNames != "" {
				if _, err := c.ExecContext(ctx, tc.setNames); err != nil {
					t.Fatal(err)
				}
			}
			rows, err := c.QueryContext(ctx, tc.text)
			if err == nil {
				for rows.Next() {
				}
				err = rows.Err()
				rows.Close()
			}
			var n, victims int
			if err := admin.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if err := admin.QueryRow("SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'victim'", db).Scan(&victims); err != nil {
				t.Fatal(err)
			}
			if n != 3 || victims != 1 {
				t.Fatalf("%q ran: t has %d rows (want 3), victim exists %d (want 1); the client saw %v", tc.text, n, victims, err)
			}
			var me *mysql.MySQLError
			if !errors.As(err, &me) || (me.Number != 1227 && me.Number != 1235) {
				t.Fatalf("%q: %v, want it held (1227) or refused as uncheckable (1235)", tc.text, err)
			}
			var one int
			ok := "SELECT 1 AS `a\xa0b`" // 0xA0 in a quoted name is a letter
			if tc.collation == "" && tc.setNames == "" {
				ok = "SELECT 1" // the refused text's SET NAMES did not run: utf8mb4
			}
			if err := c.QueryRowContext(ctx, ok).Scan(&one); err != nil || one != 1 {
				t.Fatalf("the session after the refusal: %v", err)
			}
		})
	}
	t.Logf("approvals filed: %d", len(cp.Records()))
}

// Issue 32, point 2: after SET sql_mode='ANSI_QUOTES' a "…" is a quoted
// name, so DELETE FROM "t" is a DELETE on t and the rule
// {actions: [DELETE], targets: [t, *.t]} holds it: an approval is filed
// and t keeps its rows, in one text and in two commands.
func TestANSIQuotesDeleteIsHeld(t *testing.T) {
	addr, cp, db := realListener(t, domain.Match{Actions: []string{"DELETE"}, Targets: []string{"t", "*.t"}})
	admin := localMariaDB(t, func(c *mysql.Config) { c.DBName, c.MultiStatements = db, true })
	if _, err := admin.Exec("CREATE TABLE t (id int); INSERT INTO t VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	held := func(what string, err error, filed int) {
		t.Helper()
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1227 || !strings.Contains(me.Message, "approval") {
			t.Fatalf("%s: %v, want it held for approval (1227)", what, err)
		}
		recs := cp.Records()
		if len(recs) != filed || !strings.Contains(recs[filed-1].Statement, `DELETE FROM "t"`) {
			t.Fatalf("%s: %d approvals filed (want %d): %+v", what, len(recs), filed, recs)
		}
	}
	c := rootConn(t, addr, db, "")
	_, err := c.ExecContext(ctx, `SET sql_mode='ANSI_QUOTES'; DELETE FROM "t" WHERE id=1`)
	held("one text", err, 1)
	c2 := rootConn(t, addr, db, "")
	if _, err := c2.ExecContext(ctx, `SET sql_mode='ANSI_QUOTES'`); err != nil {
		t.Fatal(err)
	}
	_, err = c2.ExecContext(ctx, `DELETE FROM "t" WHERE id=1`)
	held("two commands", err, 2)
	// A sql_mode only the server can compute: the listener asks it.
	c3 := rootConn(t, addr, db, "")
	if _, err := c3.ExecContext(ctx, `SET sql_mode = concat(@@sql_mode, ',ANSI_QUOTES')`); err != nil {
		t.Fatal(err)
	}
	_, err = c3.ExecContext(ctx, `DELETE FROM "t" WHERE id=2`)
	held("after a sql_mode from an expression", err, 3)
	var n int
	if err := admin.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != 2 {
		t.Fatalf("t has %d rows (%v), want 2", n, err)
	}
}

// A session in a sql_mode that changes the grammar in ways the analyzer
// does not follow (MariaDB's ORACLE) has every text refused as
// uncheckable (1235), and nothing runs.
func TestUnmodelledSQLModeFailsClosed(t *testing.T) {
	addr, _, db := realListener(t, domain.Match{Actions: []string{"DELETE"}})
	c := rootConn(t, addr, db, "")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "SET sql_mode='ORACLE'"); err != nil {
		t.Fatal(err)
	}
	var one int
	err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1235 || !strings.Contains(me.Message, "ORACLE") {
		t.Fatalf("SELECT 1 in ORACLE mode: %v, want 1235 naming ORACLE", err)
	}
}

// A statement prepared with the binary protocol (go-sql-driver's
// placeholders) that changes the character set is followed too: after
// executing a prepared SET character_set_client = latin1, "--" then 0xA0 is a comment, and
// the DELETE after it is held.
func TestPreparedSetNamesIsFollowed(t *testing.T) {
	addr, _, db := realListener(t, domain.Match{Actions: []string{"DELETE"}})
	admin := localMariaDB(t, func(c *mysql.Config) { c.DBName, c.MultiStatements = db, true })
	if _, err := admin.Exec("CREATE TABLE t (id int); INSERT INTO t VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
	c := rootConn(t, addr, db, "")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "SET character_set_client = ?", "latin1"); err != nil {
		t.Fatal(err)
	}
	_, err := c.ExecContext(ctx, "SELECT 1 --\xa0 /*\n; DELETE FROM t; SELECT 2 --\xa0 */")
	var n int
	if err := admin.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != 2 {
		t.Fatalf("the DELETE ran after a prepared SET character_set_client: %d rows (%v); the client saw %v", n, err, err)
	}
	var me *mysql.MySQLError
	if !errors.As(err, &me) || (me.Number != 1227 && me.Number != 1235) {
		t.Fatalf("%v, want held (1227) or refused (1235)", err)
	}
}

// A character set the server does not know gets the server's own error
// through a listener that reads every text (issue 31 point 5): go-sql-driver
// with charset=none sends SET NAMES none at login, and MariaDB's 1115
// reaches the client as it does directly; a set the server knows but the
// parser does not (SET NAMES koi8r) runs, and the session is read in it
// afterwards (asked of the server), so a later DELETE is still held.
func TestUnknownCharsetGetsTheServersError(t *testing.T) {
	addr, cp, db := realListener(t, domain.Match{Actions: []string{"DELETE"}})
	for _, target := range []string{"127.0.0.1:3306", addr} {
		cfg, err := mysql.ParseDSN("root@tcp(" + target + ")/" + db + "?charset=none")
		if err != nil {
			t.Fatal(err)
		}
		c, err := mysql.NewConnector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		pool := sql.OpenDB(c)
		err = pool.Ping()
		pool.Close()
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1115 {
			t.Errorf("charset=none via %s: %v, want MariaDB's 1115 Unknown character set", target, err)
		}
	}
	conn := rootConn(t, addr, db, "")
	ctx := context.Background()
	if _, err := conn.ExecContext(ctx, "CREATE TABLE t (a INT); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "SET NAMES koi8r"); err != nil {
		t.Fatalf("SET NAMES koi8r (MariaDB knows it): %v", err)
	}
	if _, err := conn.ExecContext(ctx, "DELETE FROM t"); err == nil {
		t.Fatal("DELETE after SET NAMES koi8r ran: want it held")
	}
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("t has %d rows (%v), want 1: nothing deleted", n, err)
	}
	if recs := cp.Records(); len(recs) != 1 || !strings.HasPrefix(recs[0].Statement, "DELETE FROM t") {
		t.Errorf("approval requests %+v, want one, for the DELETE", recs)
	}
}

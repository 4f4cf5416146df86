package mysqlconf

import (
	"context"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

const heldText = "statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval "

// The mariadb CLI on a return-mode listener: DROP TABLE t is denied with
// ERR 1227 and the spec's text naming the approval, the session stays
// usable (SELECT 1), the approver sees the statement and the login user;
// after the CLI approves, the identical DROP runs once; the next one files
// a new approval; a rejection's reason reaches the client.
func TestCLIReturnModeLoop(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.direct("CREATE TABLE t (id int); CREATE TABLE t2 (id int)")

	out := e.cli(addr, "DROP TABLE t;\nSELECT 1 AS alive;\n")
	if !strings.Contains(out, "ERROR 1227 (42000) at line 1: "+heldText) {
		t.Fatalf("the CLI did not print the spec's text with 1227/42000:\n%s", out)
	}
	if !strings.Contains(out, "alive\n1") {
		t.Fatalf("SELECT 1 on the same session did not work:\n%s", out)
	}
	ids := approvalIDs(out)
	if len(ids) != 1 {
		t.Fatalf("want one approval id:\n%s", out)
	}
	r := e.cp.Review(t, ids[0])
	if r.Status != "PENDING" || !strings.HasPrefix(r.Statement, "DROP TABLE t") || r.ClientIdentity != e.up.user {
		t.Fatalf("approver sees %+v", r)
	}
	e.cp.Approve(t, ids[0])
	if out := e.cli(addr, "DROP TABLE t;\n"); strings.Contains(out, "ERROR") {
		t.Fatalf("the approved resend did not run:\n%s", out)
	}
	if e.count("SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 't'") != 0 {
		t.Fatal("table t is still there")
	}
	if st := e.cp.Review(t, ids[0]).Status; st != "EXECUTED" {
		t.Fatalf("approval %s, want EXECUTED", st)
	}
	again := approvalIDs(e.cli(addr, "DROP TABLE t;\n"))
	if len(again) != 1 || again[0] == ids[0] {
		t.Fatalf("sending it again must file a new approval, got %v", again)
	}

	rej := approvalIDs(e.cli(addr, "DROP TABLE t2;\n"))
	if len(rej) != 1 {
		t.Fatal("DROP TABLE t2 was not held")
	}
	e.cp.Reject(t, rej[0], "not on a Friday")
	out = e.cli(addr, "DROP TABLE t2;\n")
	if !strings.Contains(out, "rejected by a person (not on a Friday); do not resend") || !strings.Contains(out, rej[0]) {
		t.Fatalf("the rejection and its reason did not reach the client:\n%s", out)
	}
	if e.count("SELECT count(*) FROM t2") != 0 || e.count("SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 't2'") != 1 {
		t.Fatal("the rejected DROP ran")
	}
}

// go-sql-driver on a wait-mode listener asks for return mode with the
// connection attribute program_name. The text protocol (COM_QUERY) runs the
// loop; the binary protocol (interpolateParams=false: COM_STMT_PREPARE and
// COM_STMT_EXECUTE) makes the bound value part of the statement: DELETE
// with 1, 2, 1 files two approvals, and approving the first lets exactly
// that one run.
func TestGoDriverReturnModeLoop(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{mode: "wait"})
	e.direct("CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3)")
	ctx := context.Background()
	c := e.conn(addr, returnApp, nil)

	_, err := c.ExecContext(ctx, "DELETE FROM t WHERE id = 3")
	text := heldID(t, err)
	e.cp.Approve(t, text)
	if res, err := c.ExecContext(ctx, "DELETE FROM t WHERE id = 3"); err != nil {
		t.Fatalf("approved resend: %v", err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("approved resend deleted %d rows", n)
	}
	if _, err := c.ExecContext(ctx, "DELETE FROM t WHERE id = 3"); heldID(t, err) == text {
		t.Fatal("the next send reused a spent approval")
	}

	_, err = c.ExecContext(ctx, "DELETE FROM t WHERE id = ?", 1)
	one := heldID(t, err)
	_, err = c.ExecContext(ctx, "DELETE FROM t WHERE id = ?", 2)
	two := heldID(t, err)
	_, err = c.ExecContext(ctx, "DELETE FROM t WHERE id = ?", 1)
	if again := heldID(t, err); one == two || again != one {
		t.Fatalf("1, 2, 1 gave approvals %s %s %s; want two, the first reused", one, two, again)
	}
	if r := e.cp.Review(t, one); !strings.Contains(r.Statement, "DELETE FROM t WHERE id = ?") || !strings.Contains(r.Statement, "-- parameters: 1") {
		t.Fatalf("approver does not see the bound value: %q", r.Statement)
	}
	e.cp.Approve(t, one)
	if _, err := c.ExecContext(ctx, "DELETE FROM t WHERE id = ?", 2); heldID(t, err) != two {
		t.Fatal("2 is no longer held by its own approval")
	}
	if _, err := c.ExecContext(ctx, "DELETE FROM t WHERE id = ?", 1); err != nil {
		t.Fatalf("approved DELETE of 1: %v", err)
	}
	if e.count("SELECT count(*) FROM t") != 1 || e.count("SELECT count(*) FROM t WHERE id = 2") != 1 {
		t.Fatal("more than the approved statements ran")
	}
	var alive int
	if err := c.QueryRowContext(ctx, "SELECT ?", 7).Scan(&alive); err != nil || alive != 7 {
		t.Fatalf("binary-protocol SELECT on the same connection: %v %d", err, alive)
	}
}

// A COM_QUERY with several statements is one unit: if one is held, none
// runs. A statement hidden in an executable comment is what MySQL runs, so
// it is held too.
func TestMultiStatementAndExecutableCommentRunNothing(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.direct("CREATE TABLE t (id int)")
	ctx := context.Background()
	c := e.conn(addr, "", nil)
	for _, q := range []string{
		"SELECT 1; DROP TABLE t",
		"INSERT INTO t VALUES (5); DROP TABLE t",
		"SELECT 1 /*!50000 ; DROP TABLE t */",
		"INSERT INTO t VALUES (6) /*! ; DROP TABLE t */",
	} {
		_, err := c.ExecContext(ctx, q)
		heldID(t, err)
		if e.count("SELECT count(*) FROM t") != 0 {
			t.Fatalf("%q: part of the text ran", q)
		}
	}
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (7); INSERT INTO t VALUES (8)"); err != nil {
		t.Fatalf("a multi-statement text nothing holds: %v", err)
	}
	if e.count("SELECT count(*) FROM t") != 2 {
		t.Fatal("the allowed multi-statement text did not run whole")
	}
}

// The current database is part of the statement: the same DELETE after
// USE other (COM_QUERY) or COM_INIT_DB files another approval, and the
// approver sees which database.
func TestSameTextOnAnotherDatabaseIsAnotherApproval(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	other := e.db + "_b"
	e.direct("CREATE TABLE t (id int); INSERT INTO t VALUES (1)")
	e.direct("CREATE DATABASE " + other)
	t.Cleanup(func() { e.adminExec("DROP DATABASE IF EXISTS " + other) })
	e.direct("CREATE TABLE " + other + ".t (id int)")
	ctx := context.Background()
	c := e.conn(addr, "", nil)

	_, err := c.ExecContext(ctx, "DELETE FROM t")
	first := heldID(t, err)
	if _, err := c.ExecContext(ctx, "USE "+other); err != nil {
		t.Fatal(err)
	}
	_, err = c.ExecContext(ctx, "DELETE FROM t")
	second := heldID(t, err)
	if first == second {
		t.Fatal("the same text on another database reused the approval")
	}
	if r := e.cp.Review(t, second); !strings.Contains(r.Statement, "-- database: "+other) {
		t.Fatalf("approver does not see the database: %q", r.Statement)
	}
	out := e.cli(addr, "DELETE FROM t;\n")
	ids := approvalIDs(out)
	if len(ids) != 1 || ids[0] != first {
		t.Fatalf("the CLI on the first database (handshake) should reuse %s:\n%s", first, out)
	}
}

// A denial inside a transaction fails it as MySQL's deadlock error does:
// the upstream's transaction is rolled back, later statements get
// 1213/40001 until ROLLBACK, COMMIT commits nothing; the connection stays
// usable.
func TestDenialInsideTransactionRollsItBack(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.direct("CREATE TABLE t (id int) ENGINE=InnoDB; INSERT INTO t VALUES (1)")
	ctx := context.Background()
	c := e.conn(addr, "", nil)
	for _, q := range []string{"BEGIN", "INSERT INTO t VALUES (2)"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_, err := c.ExecContext(ctx, "DELETE FROM t WHERE id = 1")
	heldID(t, err)
	_, err = c.ExecContext(ctx, "INSERT INTO t VALUES (3)")
	myErr(t, err, 1213)
	_, err = c.ExecContext(ctx, "COMMIT")
	myErr(t, err, 1213)
	if n := e.count("SELECT count(*) FROM t"); n != 1 {
		t.Fatalf("%d rows after COMMIT; the transaction with a denial must apply nothing", n)
	}
	var one int
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("the connection is not usable after the failed transaction: %v", err)
	}
}

// A bound value sent with COM_STMT_SEND_LONG_DATA (go-sql-driver does so
// for a value larger than its max packet share) is part of the statement:
// another long value is another approval, and the approved one runs once.
func TestLongDataIsPartOfTheStatement(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.direct("CREATE TABLE t (name text)")
	a, b := strings.Repeat("a", 3000), strings.Repeat("b", 3000)
	e.direct("INSERT INTO t VALUES ('" + a + "'), ('" + b + "')")
	c := e.conn(addr, "", func(m *mysql.Config) { m.MaxAllowedPacket = 2048 })
	ctx := context.Background()
	_, err := c.ExecContext(ctx, "DELETE FROM t WHERE name = ?", a)
	first := heldID(t, err)
	if r := e.cp.Review(t, first); !strings.Contains(r.Statement, "-- parameters: '"+a+"'") {
		t.Fatalf("the approver does not see the long value: %.200q", r.Statement)
	}
	_, err = c.ExecContext(ctx, "DELETE FROM t WHERE name = ?", b)
	if heldID(t, err) == first {
		t.Fatal("two long values got the same approval")
	}
	e.cp.Approve(t, first)
	if res, err := c.ExecContext(ctx, "DELETE FROM t WHERE name = ?", a); err != nil {
		t.Fatalf("approved DELETE with a long value: %v", err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("it deleted %d rows", n)
	}
	if e.count("SELECT count(*) FROM t") != 1 {
		t.Fatal("the wrong rows went")
	}
}

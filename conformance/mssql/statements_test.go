package mssqlconf

import (
	"context"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// A SQLBatch is one unit: with one held statement nothing of it runs
// (neither the INSERT before the DELETE nor the one after); approved, the
// identical batch runs once, whole.
func TestBatchWithHeldStatementRunsNothing(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.direct("CREATE TABLE t (id int PRIMARY KEY)")
	e.direct("INSERT INTO t (id) VALUES (1)")
	ctx := context.Background()
	db := e.open(addr, "disable", "")
	batch := "INSERT INTO t (id) VALUES (10); DELETE FROM t WHERE id = 1; INSERT INTO t (id) VALUES (11)"

	_, err := db.ExecContext(ctx, batch)
	id := heldID(t, err)
	if n := e.count("SELECT COUNT(*) FROM t"); n != 1 {
		t.Fatalf("%d rows after the held batch, want the 1 before it", n)
	}
	for _, s := range []string{"INSERT INTO t (id) VALUES (10)", "DELETE FROM t WHERE id = 1", "INSERT INTO t (id) VALUES (11)"} {
		if e.ran(s) > 0 {
			t.Fatalf("the stand-in ran %q of a held batch", s)
		}
	}
	e.cp.Approve(t, id)
	if _, err := db.ExecContext(ctx, batch); err != nil {
		t.Fatalf("approved batch: %v", err)
	}
	if e.count("SELECT COUNT(*) FROM t") != 2 || e.count("SELECT COUNT(*) FROM t WHERE id = 1") != 0 {
		t.Fatal("the approved batch did not run whole")
	}
	e.ranOnce("INSERT INTO t (id) VALUES (10)")
	e.ranOnce("DELETE FROM t WHERE id = 1")
	e.ranOnce("INSERT INTO t (id) VALUES (11)")
}

// go-mssqldb sends a query with arguments as sp_executesql: the value is
// part of the statement. DELETE … WHERE id = @p1 with 1, 2, 1 files two
// approvals (the third send names the first); approving the first lets
// exactly id 1 be deleted, once; 2 stays held by its own approval.
func TestExecuteSQLValuesAreTheStatement(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.direct("CREATE TABLE t (id int PRIMARY KEY)")
	e.direct("INSERT INTO t (id) VALUES (1), (2), (3)")
	ctx := context.Background()
	db := e.open(addr, "disable", "")
	const del = "DELETE FROM t WHERE id = @p1"

	_, err := db.ExecContext(ctx, del, 1)
	one := heldID(t, err)
	_, err = db.ExecContext(ctx, del, 2)
	two := heldID(t, err)
	_, err = db.ExecContext(ctx, del, 1)
	if again := heldID(t, err); one == two || again != one {
		t.Fatalf("1, 2, 1 gave approvals %s %s %s; want two, the first reused", one, two, again)
	}
	if r := e.cp.Review(t, one); !strings.Contains(r.Statement, del) || !strings.Contains(r.Statement, "1") {
		t.Fatalf("approver does not see the statement and its value: %q", r.Statement)
	}
	e.cp.Approve(t, one)
	if _, err := db.ExecContext(ctx, del, 2); heldID(t, err) != two {
		t.Fatal("2 is no longer held by its own approval")
	}
	if res, err := db.ExecContext(ctx, del, 1); err != nil {
		t.Fatalf("approved DELETE of 1: %v", err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("approved DELETE of 1 affected %d rows", n)
	}
	if e.count("SELECT COUNT(*) FROM t") != 2 || e.count("SELECT COUNT(*) FROM t WHERE id = 1") != 0 {
		t.Fatal("more than the approved statement ran")
	}
	e.ranOnce(del)
}

// The current database is part of the statement: an approval for DELETE in
// one database does not let the same text run in another (USE on the same
// connection, followed through the upstream's ENVCHANGE); back in the
// first database the approval is still there and runs once.
func TestSameTextInAnotherDatabase(t *testing.T) {
	e := newEnv(t)
	other := e.db + "_b"
	e.directDB("master", "CREATE DATABASE "+other)
	t.Cleanup(func() { e.execDB("master", "DROP DATABASE IF EXISTS "+other) })
	addr, _ := e.sidecar(listenerOpts{})
	e.direct("CREATE TABLE t (id int PRIMARY KEY)")
	e.direct("INSERT INTO t (id) VALUES (1)")
	e.directDB(other, "CREATE TABLE t (id int PRIMARY KEY)")
	e.directDB(other, "INSERT INTO t (id) VALUES (1)")
	ctx := context.Background()
	c, err := e.open(addr, "disable", "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const del = "DELETE FROM t WHERE id = 1"

	_, err = c.ExecContext(ctx, del)
	first := heldID(t, err)
	if r := e.cp.Review(t, first); !strings.Contains(r.Statement, e.db) {
		t.Fatalf("the approver does not see the database: %q", r.Statement)
	}
	e.cp.Approve(t, first)
	if _, err := c.ExecContext(ctx, "USE "+other); err != nil {
		t.Fatal(err)
	}
	_, err = c.ExecContext(ctx, del)
	if second := heldID(t, err); second == first {
		t.Fatal("the approval for one database let the statement run in another")
	}
	if st := e.cp.Review(t, first).Status; st != "APPROVED" {
		t.Fatalf("the first approval is %s after the other database's send, want APPROVED", st)
	}
	if _, err := c.ExecContext(ctx, "USE "+e.db); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, del); err != nil {
		t.Fatalf("approved DELETE back in %s: %v", e.db, err)
	}
	if e.count("SELECT COUNT(*) FROM t") != 0 {
		t.Fatal("the approved DELETE did not run")
	}
	if n := e.countDB(other, "SELECT COUNT(*) FROM t"); n != 1 {
		t.Fatalf("%d rows in %s, want 1", n, other)
	}
	e.ranOnce(del)
}

// With an mcp block, the denial is the spec's MCP variant (the id first,
// naming approval_wait), and approval_status over MCP reads the approval.
func TestMCPVariantAndStatusOverMCP(t *testing.T) {
	e := newEnv(t)
	mcpAddr := harness.FreeAddr(t)
	addr, _ := e.sidecar(listenerOpts{mcp: mcpAddr})
	e.direct("CREATE TABLE t (id int)")
	_, err := e.open(addr, "disable", "").ExecContext(context.Background(), "DROP TABLE t")
	me := msErr(t, err, 229)
	ids := approvalIDs(me.Message)
	if len(ids) != 1 {
		t.Fatalf("no approval id in %q", me.Message)
	}
	id := ids[0]
	want := "approval " + id + ": waiting for approval; call the MCP tool approval_wait with the approval id, then resend the identical statement once it is approved (statement held for human approval)"
	if me.Message != want {
		t.Fatalf("denial %q\nwant     %q", me.Message, want)
	}
	if m := harness.MCPApprovalStatus(t, mcpAddr, id); m["id"] != id || m["status"] != "PENDING" || m["next"] != "wait" {
		t.Fatalf("approval_status answered %v", m)
	}
	e.cp.Approve(t, id)
	if m := harness.MCPApprovalStatus(t, mcpAddr, id); m["status"] != "APPROVED" {
		t.Fatalf("approval_status after the approval answered %v", m)
	}
}

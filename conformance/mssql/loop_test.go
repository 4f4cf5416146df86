package mssqlconf

import (
	"context"
	"strings"
	"testing"
)

// go-mssqldb asks for return mode in its application name on a wait-mode
// listener: DROP TABLE t is denied with ERROR 229 naming the approval, the
// session stays usable; after the CLI approves, the identical DROP runs
// once; the next send files a new approval; a rejection's reason reaches
// the client and nothing runs.
func TestGoMSSQLDBReturnModeLoop(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{mode: "wait"})
	e.direct("CREATE TABLE t (id int PRIMARY KEY, name nvarchar(50))")
	e.direct("CREATE TABLE t2 (id int PRIMARY KEY, name nvarchar(50))")
	ctx := context.Background()
	db := e.open(addr, "disable", returnApp)

	_, err := db.ExecContext(ctx, "DROP TABLE t")
	id := heldID(t, err)
	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 after the denial: %v", err)
	}
	r := e.cp.Review(t, id)
	if r.Status != "PENDING" || !strings.HasPrefix(r.Statement, "DROP TABLE t") || r.ClientIdentity != e.user {
		t.Fatalf("approver sees %+v", r)
	}
	e.cp.Approve(t, id)
	if _, err := db.ExecContext(ctx, "DROP TABLE t"); err != nil {
		t.Fatalf("approved resend: %v", err)
	}
	if e.count("SELECT COUNT(*) FROM sys.tables WHERE name = 't'") != 0 {
		t.Fatal("table t is still there")
	}
	e.ranOnce("DROP TABLE t")
	if st := e.cp.Review(t, id).Status; st != "EXECUTED" {
		t.Fatalf("approval %s, want EXECUTED", st)
	}
	_, err = db.ExecContext(ctx, "DROP TABLE t")
	if again := heldID(t, err); again == id {
		t.Fatal("the next send reused a spent approval")
	}
	e.ranOnce("DROP TABLE t")

	_, err = db.ExecContext(ctx, "DROP TABLE t2")
	rej := heldID(t, err)
	e.cp.Reject(t, rej, "not on a Friday")
	_, err = db.ExecContext(ctx, "DROP TABLE t2")
	if me := msErr(t, err, 229); !strings.Contains(me.Message, "rejected by a person (not on a Friday); do not resend") || !strings.Contains(me.Message, rej) {
		t.Fatalf("the rejection and its reason did not reach the client: %q", me.Message)
	}
	if e.count("SELECT COUNT(*) FROM sys.tables WHERE name = 't2'") != 1 || e.ran("DROP TABLE t2") > 0 {
		t.Fatal("the rejected DROP ran")
	}
}

// FreeTDS tsql has no application name: a return-mode listener. The loop
// with its output: the held DROP prints Msg 229 with the id, the session
// goes on (SELECT 1), the approved resend runs once, the next one is held
// again.
func TestTsqlReturnModeLoop(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.direct("CREATE TABLE t (id int PRIMARY KEY)")

	out := e.tsql(addr, "off", "DROP TABLE t\ngo\nSELECT 42\ngo\nexit\n")
	if !strings.Contains(out, "Msg 229") || !strings.Contains(out, heldText) {
		t.Fatalf("tsql did not print the denial with 229 and the spec's text:\n%s", out)
	}
	if !strings.Contains(out, "42") {
		t.Fatalf("SELECT on the same session did not work:\n%s", out)
	}
	ids := approvalIDs(out)
	if len(ids) != 1 {
		t.Fatalf("want one approval id:\n%s", out)
	}
	e.cp.Approve(t, ids[0])
	if out := e.tsql(addr, "off", "DROP TABLE t\ngo\nexit\n"); strings.Contains(out, "Msg ") {
		t.Fatalf("the approved resend did not run:\n%s", out)
	}
	if e.count("SELECT COUNT(*) FROM sys.tables WHERE name = 't'") != 0 {
		t.Fatal("table t is still there")
	}
	e.ranOnce("DROP TABLE t")
	again := approvalIDs(e.tsql(addr, "off", "DROP TABLE t\ngo\nexit\n"))
	if len(again) != 1 || again[0] == ids[0] {
		t.Fatalf("sending it again must file a new approval, got %v", again)
	}
}

// Node mssql (a SQLBatch, sp_executesql with a parameter, and a prepared
// statement: sp_prepare + sp_execute) and tedious directly, each asking for
// return mode in its appName: held → the id → approval → the identical
// resend runs once → the next send is held again.
func TestNodeReturnModeLoop(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{mode: "wait"})
	e.direct("CREATE TABLE t (id int PRIMARY KEY, name nvarchar(50))")
	e.direct("INSERT INTO t (id, name) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
	cases := []struct {
		client string
		st     nodeStmt
		rows   int // rows left after the approved send
	}{
		{"mssql", nodeStmt{SQL: "DELETE FROM t WHERE id = 1"}, 3},
		{"mssql", nodeStmt{SQL: "DELETE FROM t WHERE id = @id", Params: map[string]any{"id": 2}}, 2},
		{"mssql", nodeStmt{SQL: "DELETE FROM t WHERE id = @id", Params: map[string]any{"id": 3}, Prepare: true}, 1},
		{"tedious", nodeStmt{SQL: "DELETE FROM t WHERE id = @id", Params: map[string]any{"id": 4}}, 0},
	}
	for _, c := range cases {
		t.Run(c.client+"/"+c.st.kind(), func(t *testing.T) {
			before := e.ran(c.st.SQL)
			res := e.node(c.client, addr, false, returnApp, c.st, nodeStmt{SQL: "SELECT 1 AS alive"})
			id := nodeHeld(t, res[0])
			if !res[1].OK {
				t.Fatalf("SELECT after the denial: %+v", res[1])
			}
			e.cp.Approve(t, id)
			res = e.node(c.client, addr, false, returnApp, c.st, c.st)
			if !res[0].OK || res[0].Affected != 1 {
				t.Fatalf("approved resend: %+v", res[0])
			}
			if again := nodeHeld(t, res[1]); again == id {
				t.Fatal("the next send reused a spent approval")
			}
			if n := e.count("SELECT COUNT(*) FROM t"); n != c.rows {
				t.Fatalf("%d rows left, want %d", n, c.rows)
			}
			if after := e.ran(c.st.SQL); before >= 0 && after-before != 1 { // stand-in only
				t.Fatalf("the stand-in ran %q %d times, want once", c.st.SQL, after-before)
			}
		})
	}
}

package mysqlconf

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// nodeStmt is one statement for node/run.mjs: with Params it goes through
// mysql2's execute() (binary protocol), without through query().
type nodeStmt struct {
	SQL        string         `json:"sql,omitempty"`
	Params     []any          `json:"params,omitempty"`
	ChangeUser map[string]any `json:"changeUser,omitempty"`
}

// nodeResult is run.mjs's line for one statement.
type nodeResult struct {
	OK       bool   `json:"ok"`
	Affected int    `json:"affected"`
	Errno    int    `json:"errno"`
	SQLState string `json:"sqlState"`
	Message  string `json:"message"`
}

// node runs stmts through one mysql2 connection to addr.
func (e *env) node(addr, programName string, stmts ...nodeStmt) []nodeResult {
	e.t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		e.t.Fatal("node is not installed (make deps)")
	}
	if _, err := os.Stat(filepath.Join("node", "node_modules", "mysql2")); err != nil {
		e.t.Fatal("mysql2 is not installed in conformance/mysql/node: run make deps (npm ci there)")
	}
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	cfg, _ := json.Marshal(map[string]any{"host": host, "port": p, "user": e.up.user, "password": e.up.password,
		"database": e.db, "programName": programName})
	list, _ := json.Marshal(stmts)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "run.mjs", string(cfg), string(list))
	cmd.Dir = "node"
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("node run.mjs: %v\n%s", err, out)
	}
	var res []nodeResult
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r nodeResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			e.t.Fatalf("node printed %q: %v", line, err)
		}
		res = append(res, r)
	}
	if len(res) != len(stmts) {
		e.t.Fatalf("node answered %d statements of %d:\n%s", len(res), len(stmts), out)
	}
	return res
}

// nodeHeld returns the approval id of a held-statement answer.
func nodeHeld(t *testing.T, r nodeResult) string {
	t.Helper()
	ids := approvalIDs(r.Message)
	if r.OK || r.Errno != 1227 || r.SQLState != "42000" || len(ids) != 1 {
		t.Fatalf("want a held statement (1227/42000 naming an approval), got %+v", r)
	}
	return ids[0]
}

// Node mysql2 on a wait-mode listener asks for return mode with the
// connection attribute program_name: query() and execute() run the loop,
// and the connection stays usable after a denial.
func TestNodeMysql2ReturnModeLoop(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{mode: "wait"})
	e.direct("CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1), (2)")

	res := e.node(addr, returnApp, nodeStmt{SQL: "DELETE FROM t WHERE id = 1"}, nodeStmt{SQL: "SELECT 1 AS alive"},
		nodeStmt{SQL: "DELETE FROM t WHERE id = ?", Params: []any{2}})
	text, bin := nodeHeld(t, res[0]), nodeHeld(t, res[2])
	if !res[1].OK {
		t.Fatalf("SELECT after the denial: %+v", res[1])
	}
	if !strings.HasPrefix(res[0].Message, heldText) {
		t.Fatalf("not the spec's text: %q", res[0].Message)
	}
	e.cp.Approve(t, text)
	e.cp.Approve(t, bin)
	res = e.node(addr, returnApp, nodeStmt{SQL: "DELETE FROM t WHERE id = 1"}, nodeStmt{SQL: "DELETE FROM t WHERE id = ?", Params: []any{2}},
		nodeStmt{SQL: "DELETE FROM t WHERE id = 1"})
	if !res[0].OK || res[0].Affected != 1 || !res[1].OK || res[1].Affected != 1 {
		t.Fatalf("approved resends: %+v", res)
	}
	if again := nodeHeld(t, res[2]); again == text {
		t.Fatal("the next send reused the spent approval")
	}
	if e.count("SELECT count(*) FROM t") != 0 {
		t.Fatal("the approved deletes did not run")
	}
}

// COM_CHANGE_USER (mysql2's changeUser) re-identifies the session: the
// upstream checks the login, the new database becomes current (the same
// DELETE there is another approval, shown with that database), and the
// connection keeps working.
func TestNodeChangeUserReidentifies(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	other := e.db + "_cu"
	e.direct("CREATE TABLE t (id int)")
	e.direct("CREATE DATABASE " + other)
	t.Cleanup(func() { e.adminExec("DROP DATABASE IF EXISTS " + other) })
	e.direct("CREATE TABLE " + other + ".t (id int)")
	res := e.node(addr, "", nodeStmt{SQL: "DELETE FROM t"},
		nodeStmt{ChangeUser: map[string]any{"user": e.up.user, "password": e.up.password, "database": other}},
		nodeStmt{SQL: "DELETE FROM t"}, nodeStmt{SQL: "SELECT DATABASE() AS db"})
	first, second := nodeHeld(t, res[0]), nodeHeld(t, res[2])
	if !res[1].OK || !res[3].OK {
		t.Fatalf("COM_CHANGE_USER or the query after it failed: %+v", res)
	}
	if first == second {
		t.Fatal("after COM_CHANGE_USER to another database the same DELETE reused the approval")
	}
	if r := e.cp.Review(t, second); !strings.Contains(r.Statement, "-- database: "+other) || r.ClientIdentity != e.up.user {
		t.Fatalf("approver sees %+v", r)
	}
	res = e.node(addr, "", nodeStmt{ChangeUser: map[string]any{"user": "hoop_nobody", "password": "x"}})
	if res[0].OK || res[0].Errno != 1045 {
		t.Fatalf("a refused COM_CHANGE_USER answered %+v, want the upstream's 1045", res[0])
	}
}

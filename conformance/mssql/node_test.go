package mssqlconf

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

// nodeStmt is one statement for node/run.mjs: a SQLBatch without Params,
// sp_executesql with them, sp_prepare + sp_execute with Prepare.
type nodeStmt struct {
	SQL     string         `json:"sql"`
	Params  map[string]any `json:"params,omitempty"`
	Prepare bool           `json:"prepare,omitempty"`
}

func (s nodeStmt) kind() string {
	switch {
	case s.Prepare:
		return "prepared"
	case s.Params != nil:
		return "sp_executesql"
	}
	return "batch"
}

// nodeResult is one line run.mjs printed.
type nodeResult struct {
	OK       bool             `json:"ok"`
	Connect  bool             `json:"connect"`
	Affected int              `json:"affected"`
	Rows     []map[string]any `json:"rows"`
	Number   int              `json:"number"`
	State    int              `json:"state"`
	Class    int              `json:"class"`
	Message  string           `json:"message"`
	Code     string           `json:"code"`
}

// node runs statements through one connection of the Node client ("mssql"
// or "tedious", pinned in node/package-lock.json, installed by make deps)
// to addr on the env's database; encrypt is tedious's option (false, true
// or "strict").
func (e *env) node(client, addr string, encrypt any, app string, stmts ...nodeStmt) []nodeResult {
	e.t.Helper()
	return e.nodeWith(client, addr, map[string]any{"encrypt": encrypt, "appName": app}, stmts...)
}

// nodeWith is node with run.mjs's config settings in more (encrypt,
// appName, ntlmDomain, user).
func (e *env) nodeWith(client, addr string, more map[string]any, stmts ...nodeStmt) []nodeResult {
	e.t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		e.t.Fatal("node is not installed (make deps)")
	}
	if _, err := os.Stat(filepath.Join("node", "node_modules", "tedious")); err != nil {
		e.t.Fatal("conformance/mssql/node/node_modules is missing: run make deps (npm ci there)")
	}
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	c := map[string]any{"client": client, "host": host, "port": p, "user": e.user, "password": e.pw, "database": e.db}
	if e.caFile != "" {
		c["caFile"] = e.caFile
	}
	for k, v := range more {
		c[k] = v
	}
	cfg, _ := json.Marshal(c)
	st, _ := json.Marshal(stmts)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "run.mjs", string(cfg), string(st))
	cmd.Dir = "node"
	out, err := cmd.CombinedOutput()
	var res []nodeResult
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r nodeResult
		if json.Unmarshal([]byte(line), &r) == nil {
			res = append(res, r)
		}
	}
	if len(res) == 1 && res[0].Connect {
		return res
	}
	if len(res) != len(stmts) {
		e.t.Fatalf("node %s: %v, %d results for %d statements:\n%s", client, err, len(res), len(stmts), out)
	}
	return res
}

// nodeHeld returns the approval id of a held-statement result (229/120).
func nodeHeld(t *testing.T, r nodeResult) string {
	t.Helper()
	if r.OK || r.Number != 229 || r.State != 120 || !strings.HasPrefix(r.Message, heldText) {
		t.Fatalf("want a held statement (229/120), got %+v", r)
	}
	return approvalIDs(r.Message)[0]
}

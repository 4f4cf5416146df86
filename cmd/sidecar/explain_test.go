package main_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// explainConfig has one listener per protocol, sharing rules that use
// effects, a preset, identities, text and a report-only rule. No Control
// Plane runs anywhere in these tests: explain contacts nothing.
const explainConfig = `
sidecar: demo
control_plane: {url: "http://127.0.0.1:1", token_env: NO_SUCH_TOKEN_ENV}
approval_rules:
  - {name: watch-deletes, match: {actions: [DELETE]}, report_only: true}
  - {name: agents-writes, match: {actions: [DELETE, UPDATE], identities: ["agent-*"]}}
  - {name: agents-http-writes, match: {actions: [DELETE, PUT], identities: ["agent-*"]}}
  - {name: calls, match: {actions: [CALL], targets: ["/pkg.Admin/*"]}}
  - {name: sleepy, match: {text: "(?i)pg_sleep|waitfor"}}
  - {name: code, match: {preset: unclassifiable}}
policy_rules:
  - {name: no-drop-db, match: {actions: [DROP_DATABASE]}, message: never}
listeners:
  - {name: payments, protocol: postgres, listen: 127.0.0.1:1, upstream: "x:1", approval_rules: [watch-deletes, agents-writes, sleepy, code], policy_rules: [no-drop-db]}
  - {name: shop, protocol: mysql, listen: 127.0.0.1:2, upstream: "x:1", approval_rules: [watch-deletes, agents-writes, sleepy]}
  - {name: erp, protocol: mssql, listen: 127.0.0.1:3, upstream: "x:1", approval_rules: [watch-deletes, agents-writes, sleepy, code]}
  - {name: docs, protocol: mongodb, listen: 127.0.0.1:4, upstream: "x:1", approval_rules: [watch-deletes, agents-writes, code], policy_rules: [no-drop-db]}
  - {name: api, protocol: http, listen: 127.0.0.1:5, upstream: "http://x", identity_keys: [x-agent], approval_rules: [watch-deletes, agents-http-writes]}
  - {name: rpc, protocol: grpc, listen: 127.0.0.1:6, upstream: "x:1", approval_rules: [calls]}
`

func explain(t *testing.T, cfg string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(harness.Binary(t, "sidecar"), append([]string{"explain", "--config", cfg}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The lines a user reads, one per field, on every protocol.
func TestExplainReadsAsEachListenerDoes(t *testing.T) {
	cfg := writeConfig(t, explainConfig)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--listener", "payments", "DELETE FROM t"},
			[]string{"actions: DELETE\n", "effects: DELETE, UNBOUNDED\n", "targets: public.t, t\n", "decision: allow; report-only: would_hold by watch-deletes\n"}},
		{[]string{"--listener", "payments", "--identity", "agent-1", "DELETE FROM t"},
			[]string{"decision: hold by approval rule agents-writes; report-only: would_hold by watch-deletes\n"}},
		{[]string{"--listener", "payments", "DROP DATABASE x"},
			[]string{"actions: DROP, DROP_DATABASE\n", "decision: deny by policy rule no-drop-db\n"}},
		{[]string{"--listener", "payments", "SELECT pg_sleep(10)"},
			[]string{"functions: pg_sleep\n", "decision: hold by approval rule sleepy\n"}},
		{[]string{"--listener", "payments", "SELECT 1; UPDATE t SET a = 1", "--identity", "agent-2"},
			[]string{"actions: SELECT, UPDATE\n", "decision: hold by approval rule agents-writes\n"}},
		{[]string{"--listener", "payments", "PREPARE p AS DELETE FROM t; EXECUTE p", "--identity", "agent-2"},
			[]string{"decision: hold by approval rule agents-writes;"}},
		{[]string{"--listener", "shop", "--identity", "agent-1", "DELETE FROM t WHERE id = 1"},
			[]string{"actions: DELETE\n", "targets: t\n", "decision: hold by approval rule agents-writes;"}},
		{[]string{"--listener", "shop", "SELECT 1"}, []string{"actions: SELECT\n", "effects: READ\n", "decision: allow\n"}},
		{[]string{"--listener", "shop", "SELECT * FROM"}, []string{"UNKNOWN\n", "effects: READ, UNKNOWN\n", "decision: deny_uncheckable ("}},
		{[]string{"--listener", "erp", "WAITFOR DELAY '00:00:05'"}, []string{"decision: hold by approval rule sleepy\n"}},
		{[]string{"--listener", "erp", "--identity", "bob", "DELETE FROM dbo.t"}, []string{"actions: DELETE\n", "decision: allow; report-only: would_hold by watch-deletes\n"}},
		{[]string{"--listener", "docs", `{"delete": "t", "deletes": [{"q": {}, "limit": 0}], "$db": "app"}`},
			[]string{"actions: DELETE\n", "effects: DELETE, UNBOUNDED\n", "targets: app.t\n", "decision: allow; report-only: would_hold by watch-deletes\n"}},
		{[]string{"--listener", "docs", `{"dropDatabase": 1}`}, []string{"targets: test\n", "decision: deny by policy rule no-drop-db\n"}},
		{[]string{"--listener", "api", "--identity", "agent-7", "DELETE /v1/items/1"},
			[]string{"actions: DELETE\n", "targets: /v1/items/1\n", "decision: hold by approval rule agents-http-writes;"}},
		{[]string{"--listener", "api", "GET", "/v1/items"}, []string{"actions: GET\n", "decision: allow\n"}},
		{[]string{"--listener", "rpc", "/pkg.Admin/Reset"}, []string{"actions: CALL\n", "targets: /pkg.Admin/Reset\n", "decision: hold by approval rule calls\n"}},
	} {
		out, err := explain(t, cfg, c.args...)
		if err != nil {
			t.Errorf("explain %q: %v\n%s", c.args, err, out)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("explain %q lacks %q:\n%s", c.args, w, out)
			}
		}
		if n := strings.Count(out, "\n"); n != 5 {
			t.Errorf("explain %q printed %d lines, want 5:\n%s", c.args, n, out)
		}
	}
}

// The statement on standard input, --json, and statements not in the
// listener's form.
func TestExplainStdinJSONAndMistakes(t *testing.T) {
	cfg := writeConfig(t, explainConfig)
	cmd := exec.Command(harness.Binary(t, "sidecar"), "explain", "-config", cfg, "--listener", "payments", "--json")
	cmd.Stdin = strings.NewReader("DELETE FROM t\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Protocol string
		Actions  []string
		Effects  []string
		Decision struct {
			Verdict    string
			ReportOnly []struct{ Rule, Decision string } `json:"report_only"`
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Protocol != "postgres" || got.Actions[0] != "DELETE" || got.Effects == nil || got.Decision.Verdict != "allow" ||
		len(got.Decision.ReportOnly) != 1 || got.Decision.ReportOnly[0].Decision != "would_hold" {
		t.Fatalf("%+v\n%s", got, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--listener", "api", "delete the items"}, "an http statement is METHOD /path"},
		{[]string{"--listener", "rpc", "Reset"}, "a grpc statement is /package.Service/Method"},
		{[]string{"--listener", "docs", "db.t.deleteMany({})"}, "a mongodb statement is a command in extended JSON"},
		{[]string{"--listener", "nope", "SELECT 1"}, `no listener is named "nope": the listeners are payments, shop, erp, docs, api, rpc`},
		{[]string{"--listener", "payments"}, "explain needs a statement"},
	} {
		out, err := explain(t, cfg, c.args...)
		if err == nil || !strings.Contains(out, c.want) {
			t.Errorf("explain %q: %v, want a failure saying %q:\n%s", c.args, err, c.want, out)
		}
	}
}

// The example: the shipped config's payments listener, no Control
// Plane running.
func TestExplainTheExampleConfig(t *testing.T) {
	out, err := explain(t, filepath.Join(harness.RepoRoot(t), "examples", "config.yaml"), "--listener", "payments", "DELETE FROM t")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, w := range []string{"actions: DELETE\n", "effects: DELETE, UNBOUNDED\n", "targets: public.t, t\n", "functions:", "decision: hold by approval rule db-destructive"} {
		if !strings.Contains(out, w) {
			t.Errorf("lacks %q:\n%s", w, out)
		}
	}
}

// validate warns (exit 0) when a rule on DELETE or DROP leaves RUNS_CODE
// unheld on a listener whose statements can run unread bodies.
func TestValidateWarnsAboutUnreadBodies(t *testing.T) {
	cfg := writeConfig(t, `
sidecar: demo
approval_rules:
  - {name: deletes, match: {actions: [DELETE]}}
  - {name: safe, match: {preset: destructive}}
  - {name: calls, match: {actions: [CALL], targets: ["/pkg.Admin/Delete*"]}}
listeners:
  - {name: pay, protocol: postgres, listen: 127.0.0.1:1, upstream: "x:1", approval_rules: [deletes]}
  - {name: shop, protocol: mysql, listen: 127.0.0.1:2, upstream: "x:1", approval_rules: [deletes]}
  - {name: erp, protocol: mssql, listen: 127.0.0.1:3, upstream: "x:1", approval_rules: [deletes]}
  - {name: docs, protocol: mongodb, listen: 127.0.0.1:4, upstream: "x:1", approval_rules: [deletes]}
  - {name: api, protocol: http, listen: 127.0.0.1:5, upstream: "http://x", approval_rules: [deletes]}
  - {name: rpc, protocol: grpc, listen: 127.0.0.1:6, upstream: "x:1", approval_rules: [calls]}
  - {name: pay2, protocol: postgres, listen: 127.0.0.1:7, upstream: "x:1", approval_rules: [deletes, safe]}
`)
	out, err := exec.Command(harness.Binary(t, "sidecar"), "validate", cfg).CombinedOutput()
	if err != nil {
		t.Fatalf("warnings made validate fail: %v\n%s", err, out)
	}
	for _, w := range []string{
		"warning: listeners[0]: approval rule deletes holds DELETE or DROP, but no rule of postgres listener pay holds RUNS_CODE, so statements whose body the analyzer does not read run unheld: DO $$…$$, CALL",
		"warning: listeners[1]: approval rule deletes holds DELETE or DROP, but no rule of mysql listener shop holds RUNS_CODE, so statements whose body the analyzer does not read run unheld: CALL",
		"warning: listeners[2]: approval rule deletes holds DELETE or DROP, but no rule of mssql listener erp holds RUNS_CODE, so statements whose body the analyzer does not read run unheld: EXEC",
		"warning: listeners[3]: approval rule deletes holds DELETE or DROP, but no rule of mongodb listener docs holds RUNS_CODE, so statements whose body the analyzer does not read run unheld: find with $where, mapReduce",
		": valid\n",
	} {
		if !strings.Contains(string(out), w) {
			t.Errorf("lacks %q:\n%s", w, out)
		}
	}
	if n := strings.Count(string(out), "warning:"); n != 4 {
		t.Errorf("%d warnings, want 4 (none for http, grpc, or a listener holding RUNS_CODE):\n%s", n, out)
	}
}

package main_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// Black-box, with the binaries and psql against this machine's PostgreSQL:
// a report_only rule lets DELETE … WHERE id = 1 run and writes a would_hold
// audit line (and counts it in /metrics) without filing anything; rules on
// identities apply to the login they name only; a text pattern holds what
// no action names.
func TestReportOnlyIdentitiesAndTextWithPsql(t *testing.T) {
	cp := harness.StartControlPlane(t, harness.CPOptions{})
	u, err := url.Parse(harness.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	upstream := u.Host
	if u.Port() == "" {
		upstream = net.JoinHostPort(u.Hostname(), "5432")
	}
	listen, admin := harness.FreeAddr(t), harness.FreeAddr(t)
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	harness.StartSidecar(t, harness.SidecarOptions{Token: cp.Sidecars["test"], Config: fmt.Sprintf(`sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN, timeout: 2s}
admin: {listen: %s}
audit: {file: %s}
approval_rules:
  - {name: watch-deletes, match: {actions: [DELETE]}, report_only: true}
  - {name: agents-deletes, match: {actions: [DELETE], identities: ["agent-*"]}}
  - {name: unread, match: {preset: unclassifiable}}
policy_rules:
  - {name: no-sleep, match: {identities: [postgres], text: "(?i)pg_sleep"}, message: no sleeping}
listeners:
  - {name: pg, protocol: postgres, listen: %s, upstream: %s, mode: return, approval_rules: [watch-deletes, agents-deletes, unread], policy_rules: [no-sleep]}
`, cp.URL, admin, auditPath, listen, upstream)})

	// postgres is not an agent-* login: the DELETE runs; the report-only
	// rule records what it would have held.
	out := psql(t, listen, "CREATE TEMP TABLE ro_t (id int); INSERT INTO ro_t VALUES (1), (2); DELETE FROM ro_t WHERE id = 1; SELECT 'left:' || count(*) FROM ro_t")
	if !strings.Contains(out, "left:1") {
		t.Fatalf("the DELETE did not run:\n%s", out)
	}
	if out := psql(t, listen, "SELECT PG_SLEEP(0)"); !strings.Contains(out, "no sleeping") {
		t.Fatalf("the text rule did not deny for login postgres:\n%s", out)
	}
	if n := len(cp.Reviews(t)); n != 0 {
		t.Fatalf("%d approvals filed; a report-only rule files none", n)
	}

	var lines []map[string]any
	for until := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(auditPath)
		lines = lines[:0]
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var e map[string]any
			if json.Unmarshal([]byte(l), &e) == nil {
				lines = append(lines, e)
			}
		}
		if len(lines) >= 3 || time.Now().After(until) {
			break
		}
	}
	var decisions []string
	for _, e := range lines {
		decisions = append(decisions, fmt.Sprint(e["decision"], "/", e["rule"]))
	}
	if got := strings.Join(decisions, " "); got != "would_hold/watch-deletes allow/<nil> deny_policy/no-sleep" {
		t.Fatalf("audit decisions %q", got)
	}
	if st := lines[0]["statement"]; !strings.Contains(fmt.Sprint(st), "DELETE FROM ro_t WHERE id = 1") || lines[0]["identity"] != "postgres" {
		t.Fatalf("would_hold line %v", lines[0])
	}
	if _, metrics := get(t, "http://"+admin+"/metrics"); !strings.Contains(metrics, `hoop_sidecar_statements_total{decision="would_hold",listener="pg"} 1`) {
		t.Fatalf("/metrics does not count would_hold:\n%s", metrics)
	}
}

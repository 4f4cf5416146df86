package main

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// policyConfig is the policy: payments-approvers needs two distinct
// approvers of dba/payments and a reason to reject. carol maps to the
// database login postgres (the Sidecar's client identity for psql here).
const policyConfig = `
sidecars: [{name: test, token: pol-sidecar}]
approvers:
  - {name: alice, token: pol-alice, groups: [dba], slack_user: U024BE7LH, email: alice@example.com, identities: [alice, alice_admin]}
  - {name: bob,   token: pol-bob,   groups: [dba, payments]}
  - {name: carol, token: pol-carol, groups: [dba], identities: [postgres]}
  - {name: dave,  token: pol-dave,  groups: [web]}
approval_policies:
  - rule: payments-approvers
    groups: [dba, payments]
    min_approvals: 2
    require_reason: [reject]
    forbid_self_approval: true
  - rule: "*"
`

// cpBinary runs the controlplane binary's client with args and an approver
// token against url, and returns its exit code and what it printed.
func cpBinary(t *testing.T, bin, url, token string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), envURL+"="+url, envToken+"="+token)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// psqlAt runs the real psql against addr on database db and returns what it printed.
func psqlAt(t *testing.T, addr, db, query string) string {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "psql", "-X", "-v", "ON_ERROR_STOP=0",
		fmt.Sprintf("host=%s port=%s user=postgres dbname=%s sslmode=disable", host, port, db), "-c", query).CombinedOutput()
	return string(out)
}

var approvalID = regexp.MustCompile(`\(approval ([0-9a-f-]{36})\)`)

// Black box, with the binaries: the controlplane binary serving the issue's
// policy, the sidecar binary's postgres listener in return mode in front of
// the local PostgreSQL, psql as the agent and the controlplane CLI as the
// people. The UPDATE adds one to a counter, so the row says how many times
// it ran.
func TestPolicyQuorumWithTheBinaries(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatal("psql is not installed (make deps installs postgresql-client)")
	}
	dbURL := harness.FreshDatabase(t)
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE accounts (id int PRIMARY KEY, n int NOT NULL); INSERT INTO accounts VALUES (1, 0)`); err != nil {
		t.Fatal(err)
	}
	counter := func() int {
		var n int
		if err := db.QueryRow(`SELECT n FROM accounts WHERE id = 1`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	u, _ := url.Parse(dbURL)
	dbName := strings.TrimPrefix(u.Path, "/")

	bin := harness.Binary(t, "controlplane")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cp.yaml")
	cpAddr := harness.FreeAddr(t)
	if err := os.WriteFile(cfg, []byte("listen: "+cpAddr+"\nstore: sqlite:"+filepath.Join(dir, "cp.db")+policyConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	cp := harness.Start(t, "controlplane", nil, bin, "serve", "--config", cfg)
	cp.WaitFor(t, "approval_policies=2", 20*time.Second)
	cpURL := "http://" + cpAddr

	listen := harness.FreeAddr(t)
	harness.StartSidecar(t, harness.SidecarOptions{Token: "pol-sidecar", Config: fmt.Sprintf(`sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN, timeout: 2s}
approval_rules: [{name: payments-approvers, match: {actions: [UPDATE]}}]
listeners:
  - {name: pg, protocol: postgres, listen: %s, upstream: %s, mode: return, approval_rules: [payments-approvers]}
`, cpURL, listen, u.Host)})

	const stmt = "UPDATE accounts SET n = n + 1 WHERE id = 1"
	out := psqlAt(t, listen, dbName, stmt)
	m := approvalID.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "waiting for approval") {
		t.Fatalf("the first send should be held for approval:\n%s", out)
	}
	id := m[1]

	// dave is in none of the policy's groups
	code, out := cpBinary(t, bin, cpURL, "pol-dave", "approve", id)
	if code != 1 || !strings.Contains(out, "dave may not approve approval "+id) || !strings.Contains(out, "dba, payments") ||
		!strings.Contains(out, "not_eligible, HTTP 403") {
		t.Fatalf("dave: exit %d\n%s", code, out)
	}
	// alice: 1 of 2, still PENDING; the resend is still denied and nothing ran
	code, out = cpBinary(t, bin, cpURL, "pol-alice", "approve", id)
	if code != 0 || out != "recorded your approval of "+id+": 1 of 2 approvals; it stays PENDING\n" {
		t.Fatalf("alice: exit %d\n%s", code, out)
	}
	if code, out = cpBinary(t, bin, cpURL, "pol-alice", "show", id); code != 0 ||
		!regexp.MustCompile(`approvals:\s+1 of 2 approvals`).MatchString(out) || !regexp.MustCompile(`approved by:\s+alice \(dba\)`).MatchString(out) {
		t.Fatalf("show: exit %d\n%s", code, out)
	}
	if code, out = cpBinary(t, bin, cpURL, "pol-alice", "list"); code != 0 || !strings.Contains(out, "PENDING (1 of 2)") {
		t.Fatalf("list: exit %d\n%s", code, out)
	}
	if out := psqlAt(t, listen, dbName, stmt); !strings.Contains(out, "waiting for approval") || !strings.Contains(out, id) || counter() != 0 {
		t.Fatalf("resend after one approval of two: counter %d\n%s", counter(), out)
	}
	// alice again counts once
	if code, out = cpBinary(t, bin, cpURL, "pol-alice", "approve", id); code != 0 ||
		out != "you approved "+id+" already (it counts once): 1 of 2 approvals; it stays PENDING\n" {
		t.Fatalf("alice again: exit %d\n%s", code, out)
	}
	// carol's identity is the request's client identity (postgres)
	if code, out = cpBinary(t, bin, cpURL, "pol-carol", "approve", id); code != 1 ||
		!strings.Contains(out, `its client identity "postgres" is carol's own`) || !strings.Contains(out, "self_approval, HTTP 403") {
		t.Fatalf("carol: exit %d\n%s", code, out)
	}
	// bob: 2 of 2, APPROVED; the resend runs once
	if code, out = cpBinary(t, bin, cpURL, "pol-bob", "approve", id); code != 0 ||
		out != "approved "+id+" (was PENDING): 2 of 2 approvals\n" {
		t.Fatalf("bob: exit %d\n%s", code, out)
	}
	if out := psqlAt(t, listen, dbName, stmt); !strings.Contains(out, "UPDATE 1") || counter() != 1 {
		t.Fatalf("resend after two approvals: counter %d\n%s", counter(), out)
	}
	out = psqlAt(t, listen, dbName, stmt)
	if m := approvalID.FindStringSubmatch(out); m == nil || m[1] == id || counter() != 1 {
		t.Fatalf("a send after the approval was spent must file a new request: counter %d\n%s", counter(), out)
	}
}

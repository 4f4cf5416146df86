// Package approverpage tests the Control Plane's approver page in a real
// browser (issue 12): Debian's chromium driven by playwright-core (pinned in
// package.json; scripts/deps.sh installs both). script.mjs signs in,
// approves and rejects through the page, waits for a new request to appear
// without a reload, filters by status and checks the page at 375 px. The
// screenshots (desktop.png, phone.png, phone-first-screen.png) are written
// to screenshots/ here (ignored by git) as test artifacts. oidc.mjs signs
// in at a real OpenID provider instead (oidc_test.go, provider_test.go).
// browser.mjs is what both scripts share (input, checks, launching chromium).
package approverpage

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

const sidecarToken = "test-sidecar-token"

func file(t *testing.T, cp *harness.ControlPlane, body map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", cp.URL+"/api/sidecars/reviews", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+sidecarToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 201 {
		t.Fatalf("file: %d %v", resp.StatusCode, err)
	}
	return out.ID
}

// needChromium fails t when the browser test's tools are missing (make deps
// installs them): a browser test that skipped would prove nothing.
func needChromium(t *testing.T) {
	t.Helper()
	for _, need := range []string{"node", "/usr/bin/chromium"} {
		if _, err := exec.LookPath(need); err != nil {
			t.Fatalf("%s not found: run make deps (Debian's chromium, Node 20)", need)
		}
	}
	if _, err := os.Stat("node_modules/playwright-core"); err != nil {
		t.Fatalf("playwright-core is not installed here: run make deps (npm ci in conformance/approverpage)")
	}
}

// inChromium runs script (node, 3 minutes at most) against cp with env
// (KEY=value, beside CP_URL) and fails t unless it prints its JSON line
// with at least minChecks checks, every one passed.
func inChromium(t *testing.T, cp *harness.ControlPlane, script string, minChecks int, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(append(os.Environ(), "CP_URL="+cp.URL), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s\n%s\n%s", script, err, stdout.String(), stderr.String(), cp.Output())
	}
	var res struct {
		Checks []struct {
			Name, Detail string
			OK           bool
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || len(res.Checks) < minChecks {
		t.Fatalf("%s output (%v):\n%s\n%s", script, err, stdout.String(), stderr.String())
	}
	for _, c := range res.Checks {
		if !c.OK {
			t.Errorf("in the browser: %s failed (%s)", c.Name, c.Detail)
		}
	}
}

func TestApproverPageInChromium(t *testing.T) {
	needChromium(t)
	cp := harness.StartControlPlane(t, harness.CPOptions{})

	// A few requests of every kind, as a Sidecar files them.
	rejected := file(t, cp, map[string]any{"fingerprint": "v1:old", "listener_name": "billing-api", "approval_rule": "http-writes",
		"statement": "DELETE /v1/customers/7", "protocol": "http", "client_identity": "agent-7"})
	cp.Reject(t, rejected, "customers are never deleted by agents")
	done := file(t, cp, map[string]any{"fingerprint": "v1:ok", "listener_name": "billing-api", "approval_rule": "http-writes",
		"statement": "PATCH /v1/invoices/41", "protocol": "http", "client_identity": "agent-7", "time_limit_seconds": 1800})
	cp.Approve(t, done)
	var long strings.Builder
	long.WriteString("WITH stale AS (\n  SELECT id FROM invoices\n  WHERE status = 'draft'\n    AND updated_at < now() - interval '90 days'\n)\n")
	for i := range 30 {
		long.WriteString("-- reviewed batch " + string(rune('A'+i%26)) + ": customers in region eu-west, accounts receivable, quarterly close\n")
	}
	long.WriteString("DELETE FROM invoices USING stale WHERE invoices.id = stale.id RETURNING invoices.id, invoices.customer_id, invoices.total_cents;")
	longID := file(t, cp, map[string]any{"fingerprint": "v1:long", "listener_name": "payments", "approval_rule": "db-destructive",
		"statement": long.String(), "protocol": "postgres", "client_identity": "reporting_agent"})
	rejectID := file(t, cp, map[string]any{"fingerprint": "v1:drop", "listener_name": "payments", "approval_rule": "db-destructive",
		"statement": "DROP TABLE invoices_archive_2019_with_a_rather_long_name_that_must_wrap_on_a_phone_screen_without_scrolling", "protocol": "postgres", "client_identity": "agent"})
	approveID := file(t, cp, map[string]any{"fingerprint": "v1:del", "listener_name": "billing-api", "approval_rule": "http-writes",
		"statement": "DELETE /v1/invoices/42", "protocol": "http", "client_identity": "agent-7", "time_limit_seconds": 1800})

	out, err := filepath.Abs("screenshots")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	inChromium(t, cp, "script.mjs", 15, "APPROVER=tester", "TOKEN="+harness.ApproverToken, "SIDECAR_TOKEN="+sidecarToken,
		"APPROVE_ID="+approveID, "REJECT_ID="+rejectID, "LONG_ID="+longID, "OUT="+out)
	// What the page did is what the API reads.
	if r := cp.Review(t, approveID); r.Status != "APPROVED" {
		t.Errorf("approved on the page, the API reads %s", r.Status)
	}
	var rej struct {
		Status, RejectionReason, DecidedBy string
	}
	raw := cp.CLI(t, "show", rejectID, "--json")
	_ = json.Unmarshal([]byte(raw), &rej)
	if !strings.Contains(raw, `"status": "REJECTED"`) || !strings.Contains(raw, `"rejection_reason": "not during the freeze"`) || !strings.Contains(raw, `"decided_by": "tester"`) {
		t.Errorf("rejected on the page, the API reads:\n%s", raw)
	}
	for _, f := range []string{"desktop.png", "phone.png", "phone-first-screen.png"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() < 10_000 {
			t.Errorf("screenshot %s: %v", f, err)
		}
	}
	t.Logf("screenshots in %s", out)
}

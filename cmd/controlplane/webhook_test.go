package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// The real binary notifies a new approval request through the webhooks of
// its config file (docs/controlplane.md, "Notifications").
func TestServeNotifiesTheConfiguredWebhooks(t *testing.T) {
	got := make(chan []byte, 10)
	rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
	}))
	defer rec.Close()
	bin := harness.Binary(t, "controlplane")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cp.yaml")
	t.Setenv("CP_TEST_HOOK_URL", rec.URL+"/slack")
	if err := os.WriteFile(cfg, []byte("listen: 127.0.0.1:0\nstore: sqlite:"+filepath.Join(dir, "cp.db")+`
public_url: https://approvals.example
sidecars: [{name: demo, token: dev-sidecar-token}]
approvers: [{name: dev, token: dev-approver-token}]
webhooks:
  - {name: ops, url: "`+rec.URL+`/json"}
  - {name: team, format: slack, url_env: CP_TEST_HOOK_URL, include_statement: true}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, addr, logs := startBinary(t, bin, cfg)
	if !regexp.MustCompile(`msg="control plane listening" .*webhooks=2`).MatchString(logs.String()) {
		t.Fatalf("serve did not listen with webhooks=2:\n%s", logs.String())
	}
	code, filed := post(t, "http://"+addr+"/api/sidecars/reviews", "dev-sidecar-token", map[string]any{
		"fingerprint": "v1:aa", "listener_name": "payments", "approval_rule": "db-destructive", "statement": "DROP TABLE t",
		"protocol": "postgres", "client_identity": "agent"})
	id, _ := filed["id"].(string)
	if code != 201 || id == "" {
		t.Fatalf("file: %d %v", code, filed)
	}
	var bodies []string
	for range 2 {
		select {
		case b := <-got:
			bodies = append(bodies, string(b))
		case <-time.After(30 * time.Second):
			t.Fatalf("the webhooks were not called:\n%s", logs.String())
		}
	}
	all := strings.Join(bodies, "\n")
	for _, want := range []string{
		`"event":"approval.requested","url":"https://approvals.example/#r-` + id + `"`,
		`"text":"Approval requested on demo / payments (postgres) (rule db-destructive): \u003chttps://approvals.example/#r-` + id + `|open it\u003e"`,
		"```DROP TABLE t```",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the webhook bodies lack %s:\n%s", want, all)
		}
	}
	if strings.Count(all, "DROP TABLE t") != 1 {
		t.Errorf("the statement went to the webhook without include_statement:\n%s", all)
	}
}

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/internal/testlog"
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
	var logs testlog.Buffer
	cmd := exec.Command(bin, "serve", cfg)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	re := regexp.MustCompile(`msg="control plane listening" addr=(127\.0\.0\.1:\d+).* webhooks=2`)
	var addr string
	for deadline := time.Now().Add(20 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(logs.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("serve never said where it listens, with webhooks=2:\n%s", logs.String())
	}
	req, _ := http.NewRequest("POST", "http://"+addr+"/api/sidecars/reviews", strings.NewReader(
		`{"fingerprint":"v1:aa","listener_name":"payments","approval_rule":"db-destructive","statement":"DROP TABLE t","protocol":"postgres","client_identity":"agent"}`))
	req.Header.Set("Authorization", "Bearer dev-sidecar-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var filed struct{ ID string }
	_ = json.NewDecoder(resp.Body).Decode(&filed)
	resp.Body.Close()
	if resp.StatusCode != 201 || filed.ID == "" {
		t.Fatalf("file: %d", resp.StatusCode)
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
		`"event":"approval.requested","url":"https://approvals.example/#r-` + filed.ID + `"`,
		`"text":"Approval requested on demo / payments (postgres) (rule db-destructive): \u003chttps://approvals.example/#r-` + filed.ID + `|open it\u003e"`,
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

package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// The real binary with a slack: block posts a new request through the Web
// API (here a stand-in), keeps the format: slack incoming webhook beside it,
// and decides a signed click from the approver's slack_user
// (docs/controlplane.md, "Slack app").
func TestServeSlackApp(t *testing.T) {
	calls := make(chan string, 10) // "method body"
	slk := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		calls <- strings.TrimPrefix(r.URL.Path, "/api/") + " " + string(b)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true,"channel":"C0APPROVALS","ts":"1700000000.000100"}`)
	}))
	defer slk.Close()
	bin := harness.Binary(t, "controlplane")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cp.yaml")
	const secret = "test-signing-secret"
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-test")
	t.Setenv("SLACK_SIGNING_SECRET", secret)
	if err := os.WriteFile(cfg, []byte("listen: 127.0.0.1:0\nstore: sqlite:"+filepath.Join(dir, "cp.db")+`
public_url: https://approvals.example
sidecars: [{name: demo, token: dev-sidecar-token}]
approvers: [{name: dev, token: dev-approver-token, slack_user: U0DEV}]
webhooks: [{name: team, format: slack, url: "`+slk.URL+`/incoming"}]
slack: {channel: C0APPROVALS, api_url: "`+slk.URL+`/api/"}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, addr, logs := startBinary(t, bin, cfg)
	if !regexp.MustCompile(`msg="control plane listening" .*webhooks=1 slack=true`).MatchString(logs.String()) {
		t.Fatalf("serve did not listen with webhooks=1 slack=true:\n%s", logs.String())
	}
	code, filed := post(t, "http://"+addr+"/api/sidecars/reviews", "dev-sidecar-token", map[string]any{
		"fingerprint": "v1:aa", "listener_name": "payments", "approval_rule": "db-destructive", "statement": "DROP TABLE t",
		"protocol": "postgres", "client_identity": "agent"})
	id, _ := filed["id"].(string)
	if code != 201 || id == "" {
		t.Fatalf("file: %d %v", code, filed)
	}
	got := map[string]string{}
	for len(got) < 2 {
		select {
		case c := <-calls:
			m, body, _ := strings.Cut(c, " ")
			got[m] = body
		case <-time.After(30 * time.Second):
			t.Fatalf("Slack got %v only:\n%s", got, logs.String())
		}
	}
	if !strings.Contains(got["/incoming"], "approvals.example/#r-"+id) {
		t.Errorf("the format: slack webhook: %s", got["/incoming"])
	}
	if !strings.Contains(got["chat.postMessage"], "hoop_approve") || !strings.Contains(got["chat.postMessage"], id) {
		t.Errorf("chat.postMessage: %s", got["chat.postMessage"])
	}

	payload, _ := json.Marshal(map[string]any{"type": "block_actions", "user": map[string]any{"id": "U0DEV"},
		"channel": map[string]any{"id": "C0APPROVALS"}, "container": map[string]any{"message_ts": "1700000000.000100"},
		"actions": []any{map[string]any{"type": "button", "block_id": "decide", "action_id": "hoop_approve", "value": id}}})
	form := url.Values{"payload": {string(payload)}}.Encode()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + ts + ":" + form))
	req, _ := http.NewRequest("POST", "http://"+addr+"/slack/interactivity", strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the signed click answered %d", resp.StatusCode)
	}
	if _, r := get(t, "http://"+addr+"/api/reviews/"+id, "dev-approver-token"); r["status"] != "APPROVED" || r["decided_by"] != "dev" {
		t.Fatalf("after the click: %v\n%s", r, logs.String())
	}
	select {
	case c := <-calls:
		if !strings.HasPrefix(c, "chat.update ") || !strings.Contains(c, "Approved") {
			t.Errorf("after the click Slack got %s", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the message was not updated")
	}
}

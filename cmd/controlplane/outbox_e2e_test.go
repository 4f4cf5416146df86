package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/notify"
	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/internal/testlog"
)

// The outbox's promise, shown on the real binary: 50 requests filed while
// the receiver is down, the Control Plane killed with SIGKILL, then both
// restarted: every notification arrives once, signed (docs/controlplane.md,
// "Notifications never lost").
func TestKilledWithQueuedNotificationsDeliversEachOnceSigned(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	key, _ := notify.ParseSecret(secret)
	// A port with nobody listening yet: the receiver is down.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hookAddr := ln.Addr().String()
	ln.Close()

	bin := harness.Binary(t, "controlplane")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cp.yaml")
	t.Setenv("CP_TEST_HOOK_SECRET", secret)
	if err := os.WriteFile(cfg, []byte("listen: 127.0.0.1:0\nstore: sqlite:"+filepath.Join(dir, "cp.db")+`
sidecars: [{name: demo, token: dev-sidecar-token}]
approvers: [{name: dev, token: dev-approver-token}]
webhooks:
  - {name: ops, url: "http://`+hookAddr+`/hook", secret_env: CP_TEST_HOOK_SECRET}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cp, addr, logs := startBinary(t, bin, cfg)
	filed := map[string]bool{}
	for i := range 50 {
		code, body := post(t, "http://"+addr+"/api/sidecars/reviews", "dev-sidecar-token", map[string]any{
			"fingerprint": fmt.Sprintf("v1:%02x", i), "listener_name": "payments", "approval_rule": "db-destructive"})
		if code != 201 {
			t.Fatalf("file %d: %d %v", i, code, body)
		}
		filed[body["id"].(string)] = true
	}
	waitLog(t, logs, `msg="webhook: delivery failed; retrying"`)
	if err := cp.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cp.Wait()

	// The receiver comes up and verifies every POST.
	type arrival struct{ id, approval, err string }
	var mu sync.Mutex
	var got []arrival
	ln, err = net.Listen("tcp", hookAddr)
	if err != nil {
		t.Fatalf("the receiver cannot take its port back: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		a := arrival{id: r.Header.Get("webhook-id")}
		if err := notify.Verify(key, a.id, r.Header.Get("webhook-timestamp"), r.Header.Get("webhook-signature"), b, time.Now(), 5*time.Minute); err != nil {
			a.err = err.Error()
		}
		var e struct{ Approval struct{ ID string } }
		_ = json.Unmarshal(b, &e)
		a.approval = e.Approval.ID
		mu.Lock()
		got = append(got, a)
		mu.Unlock()
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	_, _, logs2 := startBinary(t, bin, cfg)
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 50 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 50 notifications arrived after the restart:\n%s", n, logs2.String())
		}
	}
	// Once the outbox marked all 50 delivered, none is sent again: count then.
	for deadline := time.Now().Add(time.Minute); strings.Count(logs2.String(), `msg="webhook: delivered"`) < 50; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the restarted Control Plane did not mark 50 delivered:\n%s", logs2.String())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	ids := map[string]int{}
	for _, a := range got {
		ids[a.id]++
		if a.err != "" {
			t.Errorf("notification %s did not verify: %s", a.id, a.err)
		}
		if !filed[a.approval] {
			t.Errorf("notification %s is about %q, which was not filed", a.id, a.approval)
		}
		delete(filed, a.approval)
	}
	if len(got) != 50 || len(ids) != 50 || len(filed) != 0 {
		t.Errorf("50 filed: %d POSTs, %d distinct webhook-ids, %d requests never notified", len(got), len(ids), len(filed))
	}
}

// startBinary runs bin serve cfg and returns the process, its address and
// its log; it is stopped (SIGTERM) when t ends unless killed before.
func startBinary(t *testing.T, bin, cfg string) (*exec.Cmd, string, *testlog.Buffer) {
	t.Helper()
	logs := &testlog.Buffer{}
	cmd := exec.Command(bin, "serve", cfg)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}
	})
	re := regexp.MustCompile(`msg="control plane listening" addr=(127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(logs.String()); m != nil {
			return cmd, m[1], logs
		}
	}
	t.Fatalf("serve never said where it listens:\n%s", logs.String())
	return nil, "", nil
}

func waitLog(t *testing.T, logs *testlog.Buffer, substr string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(logs.String(), substr) {
			return
		}
	}
	t.Fatalf("no log line with %q:\n%s", substr, logs.String())
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store/storetest"
	"github.com/hoophq/sidecar/internal/testlog"
)

// startServe runs `controlplane serve` in-process on cfg and returns its
// base URL; it is stopped when t ends.
func startServe(t *testing.T, cfg string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var logs testlog.Buffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--config", cfg}, io.Discard, &logs) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exit %d:\n%s", code, logs.String())
		}
	})
	re := regexp.MustCompile(`msg="control plane listening" addr=(127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(logs.String()); m != nil {
			return "http://" + m[1]
		}
		select {
		case code := <-done:
			done <- code
			t.Fatalf("serve exited %d:\n%s", code, logs.String())
		default:
		}
	}
	t.Fatalf("serve never said where it listens:\n%s", logs.String())
	return ""
}

func post(t *testing.T, url, token string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// TestTwoReplicasShareOnePostgres runs two Control Plane replicas on one
// PostgreSQL database: a request filed on one is approved with the CLI on
// the other, and 50 concurrent claims spread over both have one winner.
func TestTwoReplicasShareOnePostgres(t *testing.T) {
	pg := storetest.PostgresDB(t)
	cfg := filepath.Join(t.TempDir(), "cp.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("listen: 127.0.0.1:0\nstore: %q\n"+
		"sidecars: [{name: demo, token: tok-demo}]\napprovers: [{name: dev, token: tok-dev}]\n", pg)), 0o600); err != nil {
		t.Fatal(err)
	}
	a, b := startServe(t, cfg), startServe(t, cfg)
	body := map[string]any{"fingerprint": "v1:aa", "listener_name": "pg", "approval_rule": "r", "statement": "DROP TABLE t"}
	code, filed := post(t, a+"/api/sidecars/reviews", "tok-demo", body)
	if code != 201 {
		t.Fatalf("file on replica A: %d %v", code, filed)
	}
	id := filed["id"].(string)
	if code, again := post(t, b+"/api/sidecars/reviews", "tok-demo", body); code != 200 || again["id"] != id {
		t.Fatalf("file on replica B must reuse: %d %v", code, again)
	}
	if c, out, errs := cli(t, "approve", id, "--url", b, "--token", "tok-dev"); c != 0 || out != "approved "+id+" (was PENDING)\n" {
		t.Fatalf("approve on replica B: %d %q %q", c, out, errs)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	start := make(chan struct{})
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(base string) {
			defer wg.Done()
			<-start
			c, _ := post(t, base+"/api/sidecars/reviews/"+id+"/claim", "tok-demo", map[string]any{"fingerprint": "v1:aa"})
			mu.Lock()
			codes[c]++
			mu.Unlock()
		}([]string{a, b}[i%2])
	}
	close(start)
	wg.Wait()
	if codes[200] != 1 || codes[409] != 49 {
		t.Fatalf("claims over two replicas: %v, want one 200 and 49 409", codes)
	}
}

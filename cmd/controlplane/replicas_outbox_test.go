package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/cmd/controlplane/store/storetest"
)

// Two serve replicas on one PostgreSQL database, one webhook: 30 requests
// filed over both and each approved on the other are each announced once
// (requested, then approved), whichever replica delivers.
func TestTwoReplicasNotifyEachEventOnce(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{} // event + " " + approval id → POSTs
	rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var e struct {
			Event    string
			Approval struct{ ID string }
		}
		_ = json.Unmarshal(b, &e)
		mu.Lock()
		seen[e.Event+" "+e.Approval.ID]++
		mu.Unlock()
	}))
	defer rec.Close()
	pg := storetest.PostgresDB(t)
	cfg := filepath.Join(t.TempDir(), "cp.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("listen: 127.0.0.1:0\nstore: %q\n"+
		"sidecars: [{name: demo, token: tok-demo}]\napprovers: [{name: dev, token: tok-dev}]\n"+
		"webhooks: [{name: ops, url: %q}]\n", pg, rec.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	reps := []string{startServe(t, cfg), startServe(t, cfg)}
	const n = 30
	var ids []string
	for i := range n {
		code, filed := post(t, reps[i%2]+"/api/sidecars/reviews", "tok-demo",
			map[string]any{"fingerprint": fmt.Sprintf("v1:%02x", i), "listener_name": "pg", "approval_rule": "r"})
		if code != 201 {
			t.Fatalf("file %d: %d %v", i, code, filed)
		}
		id := filed["id"].(string)
		ids = append(ids, id)
		if code, out := post(t, reps[(i+1)%2]+"/api/reviews/"+id+"/approve", "tok-dev", map[string]any{}); code != 200 {
			t.Fatalf("approve %d: %d %v", i, code, out)
		}
	}
	// Once the outbox marked every event delivered, none is sent again: count then.
	ob, _ := store.OutboxOf(storetest.OpenAddr(t, pg))
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		c, err := ob.Counts(context.Background())
		if err == nil && c[store.OutboxDelivered] == 2*n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("outbox %v %v, want %d delivered", c, err, 2*n)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, id := range ids {
		for _, ev := range []string{"approval.requested", "approval.approved"} {
			if c := seen[ev+" "+id]; c != 1 {
				t.Errorf("%s %s arrived %d times", ev, id, c)
			}
		}
	}
}

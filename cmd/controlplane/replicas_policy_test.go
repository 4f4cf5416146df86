package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hoophq/sidecar/cmd/controlplane/store/storetest"
)

// TestTwoApproversOnTwoReplicasAtOnce: two Control Plane replicas on one
// PostgreSQL database, a policy needing two approvals; for each of 20
// requests alice approves on replica A and bob on replica B at the same
// moment. Every request ends APPROVED with both approvals kept, and exactly
// one of the two answers says APPROVED (the other PENDING, 1 of 2).
func TestTwoApproversOnTwoReplicasAtOnce(t *testing.T) {
	pg := storetest.PostgresDB(t)
	cfg := filepath.Join(t.TempDir(), "cp.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("listen: 127.0.0.1:0\nstore: %q\n", pg)+`
sidecars: [{name: demo, token: tok-demo}]
approvers:
  - {name: alice, token: tok-alice, groups: [dba]}
  - {name: bob, token: tok-bob, groups: [payments]}
approval_policies:
  - {rule: "payments-*", groups: [dba, payments], min_approvals: 2, all_groups_must_approve: true}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	a, b := startServe(t, cfg), startServe(t, cfg)
	for i := range 20 {
		code, filed := post(t, a+"/api/sidecars/reviews", "tok-demo", map[string]any{"fingerprint": fmt.Sprintf("v1:%02d", i),
			"listener_name": "pg", "approval_rule": "payments-approvers", "statement": "DROP TABLE t"})
		if code != 201 {
			t.Fatalf("file: %d %v", code, filed)
		}
		id := filed["id"].(string)
		var wg sync.WaitGroup
		start := make(chan struct{})
		answers := make([]map[string]any, 2)
		for j, c := range []struct{ base, token string }{{a, "tok-alice"}, {b, "tok-bob"}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				code, ans := post(t, c.base+"/api/reviews/"+id+"/approve", c.token, nil)
				if code != 200 {
					t.Errorf("%s: %d %v", c.token, code, ans)
				}
				answers[j] = ans
			}()
		}
		close(start)
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		approved := 0
		for _, ans := range answers {
			if ans["status"] == "APPROVED" {
				approved++
			}
		}
		code, got := get(t, b+"/api/reviews/"+id, "tok-alice")
		if code != 200 || approved != 1 || got["status"] != "APPROVED" || len(got["approvals"].([]any)) != 2 {
			t.Fatalf("request %d: %d answers said APPROVED; read back %d %v", i, approved, code, got)
		}
	}
}

// get reads url with a Bearer token and decodes the JSON object answered.
func get(t *testing.T, url, token string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

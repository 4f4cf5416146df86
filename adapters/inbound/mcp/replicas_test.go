package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
)

// Two Sidecar replicas (one Control Plane) behind a round-robin answer a
// sequence of calls from one client exactly as each replica does on its own:
// the server keeps no session.
func TestTwoReplicasBehindRoundRobinAnswerIdentically(t *testing.T) {
	cp := fakecp.New(nil)
	a, b := newEnvWith(t, cp, nil), newEnvWith(t, cp, nil)
	pending := a.file(t, "fp-rr-pending")
	decided := a.file(t, "fp-rr-decided")
	if err := cp.Decide(decided, domain.StatusRejected, "too risky"); err != nil {
		t.Fatal(err)
	}
	seq := []struct {
		tool string
		args map[string]any
	}{
		{"approval_status", map[string]any{"id": pending}},
		{"review_status", map[string]any{"id": pending}},
		{"approval_list", map[string]any{}},
		{"review_list", map[string]any{"status": "REJECTED", "limit": 5}},
		{"approval_wait", map[string]any{"id": decided}},
		{"review_wait", map[string]any{"id": decided, "timeout_seconds": 5}},
		{"approval_status", map[string]any{"id": "ap-nope"}},
		{"approval_list", map[string]any{"limit": 0}},
	}
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			harness.SameAnswersViaRoundRobin(t, func(t *testing.T, url string) []string {
				cs, _ := connect(t, url, v)
				tools, err := cs.ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				tj, _ := json.Marshal(tools.Tools)
				out := []string{string(tj)}
				for _, c := range seq {
					rj, _ := json.Marshal(call(t, cs, c.tool, c.args))
					out = append(out, string(rj))
				}
				return out
			}, 5, a.url, b.url)
		})
	}
}

package mcpconf

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hoophq/sidecar/conformance/harness"
)

// Two Sidecar processes (one reference Control Plane, one token) behind a
// round-robin answer a sequence of calls from one client exactly as each
// process does on its own: the MCP server keeps no session.
func TestTwoSidecarProcessesBehindRoundRobinAnswerIdentically(t *testing.T) {
	s := startStack(t)
	other := harness.FreeAddr(t)
	harness.StartSidecar(t, harness.SidecarOptions{Config: sidecarConfig(s.cp.URL, other), Token: sidecarToken})
	pending := s.file(t, "fp-rr-pending")
	rejected := s.file(t, "fp-rr-rejected")
	s.cp.Reject(t, rejected, "too risky")

	seq := []struct {
		tool string
		args map[string]any
	}{
		{"approval_status", map[string]any{"id": pending}},
		{"review_status", map[string]any{"id": pending}},
		{"approval_list", map[string]any{}},
		{"review_list", map[string]any{"status": "REJECTED", "limit": 5}},
		{"approval_wait", map[string]any{"id": rejected}},
		{"review_wait", map[string]any{"id": rejected, "timeout_seconds": 5}},
		{"approval_status", map[string]any{"id": "00000000-0000-0000-0000-000000000000"}},
	}
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			harness.SameAnswersViaRoundRobin(t, func(t *testing.T, url string) []string {
				cs := connect(t, url, v)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				tj, _ := json.Marshal(tools.Tools)
				out := []string{string(tj)}
				for _, c := range seq {
					res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
					if err != nil {
						t.Fatalf("%s: %v", c.tool, err)
					}
					rj, _ := json.Marshal(res)
					out = append(out, string(rj))
				}
				return out
			}, 5, s.url(), "http://"+other+"/mcp")
		})
	}
}

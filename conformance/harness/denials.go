package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// approvalRE finds the approval id in the spec's denial text ("… (approval
// <id>)") and in its MCP variant ("approval <id>: …").
var approvalRE = regexp.MustCompile(`(?:\(approval |approval )([0-9a-f-]{36})`)

// ApprovalIDs returns the distinct approval ids the denial texts in s
// name, in order.
func ApprovalIDs(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range approvalRE.FindAllStringSubmatch(s, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// MCPApprovalStatus calls the MCP tool approval_status for id on the
// Sidecar's MCP server at addr (host:port, streamable HTTP at /mcp) and
// returns its JSON answer; it fails the test when the call fails.
func MCPApprovalStatus(t testing.TB, addr, id string) map[string]any {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "conformance", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "approval_status", Arguments: map[string]any{"id": id}})
	if err != nil || res.IsError {
		t.Fatalf("approval_status: %v %+v", err, res)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &m); err != nil {
		t.Fatalf("approval_status answer: %v", err)
	}
	return m
}

// RSS is a process's resident set size in bytes (/proc/PID/status VmRSS).
func RSS(t testing.TB, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

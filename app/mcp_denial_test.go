package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
)

// With an mcp block, a return-mode denial on any protocol leads with the
// approval id and names approval_wait (the spec's second error text); the
// core builds it, so every protocol adapter sends the same text.
func TestReturnModeDenialNamesApprovalWaitWhenMCPIsConfigured(t *testing.T) {
	for _, c := range []struct {
		withMCP bool
		want    string
	}{
		{true, "approval ap-0001: waiting for approval; call the MCP tool approval_wait with the approval id, then resend the identical statement once it is approved (statement held for human approval)"},
		{false, "statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval ap-0001)"},
	} {
		core := app.NewCore(app.CoreOptions{Sidecar: "test", CP: fakecp.New(nil), WithMCP: c.withMCP})
		rule := domain.ApprovalRule{Name: "db-destructive", Match: domain.Match{Actions: []string{"DROP"}}}
		if err := rule.Match.Compile(); err != nil {
			t.Fatal(err)
		}
		for _, proto := range []string{"postgres", "mysql", "mssql", "mongodb"} {
			l := core.Listener(app.ListenerSettings{Name: "db-" + proto, Protocol: proto, Mode: app.ModeReturn,
				Approvals: []domain.ApprovalRule{rule}})
			out := l.Check(context.Background(), app.Statement{Identity: "agent", Canonical: []byte("DROP TABLE t"),
				Display: "DROP TABLE t", Analysis: domain.Analysis{Actions: []string{"DROP"}, Targets: []string{"public.t"}}})
			if out.Forward || out.Denial == nil {
				t.Fatalf("%s: statement was not denied: %+v", proto, out)
			}
			// Each listener files its own request; compare with the id in place.
			want := strings.Replace(c.want, "ap-0001", out.Denial.ApprovalID, 1)
			if out.Denial.Message != want {
				t.Fatalf("%s withMCP=%v:\n got  %s\n want %s", proto, c.withMCP, out.Denial.Message, want)
			}
		}
	}
}

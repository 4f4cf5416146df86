package app_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
)

// With an mcp block, a return-mode denial leads with the approval id and
// names approval_wait (the spec's second error text); without one it is the
// spec's first text. The core builds the text for every listener, whatever
// its protocol, and the adapters send it unchanged: the sidecar binary's
// tests (cmd/sidecar/controlplane_test.go) read it from psql and curl.
func TestReturnModeDenialNamesApprovalWaitWhenMCPIsConfigured(t *testing.T) {
	for _, c := range []struct {
		withMCP bool
		want    string
	}{
		{true, "approval %s: waiting for approval; call the MCP tool approval_wait with the approval id, then resend the identical statement once it is approved (statement held for human approval)"},
		{false, "statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval %s)"},
	} {
		core := app.NewCore(app.CoreOptions{Sidecar: "test", CP: fakecp.New(nil), WithMCP: c.withMCP})
		rule := domain.ApprovalRule{Name: "db-destructive", Match: domain.Match{Actions: []string{"DROP"}}}
		if err := rule.Match.Compile(); err != nil {
			t.Fatal(err)
		}
		l := core.Listener(app.ListenerSettings{Name: "db", Protocol: "postgres", Mode: app.ModeReturn,
			Approvals: []domain.ApprovalRule{rule}})
		out := l.Check(context.Background(), app.Statement{Identity: "agent", Canonical: []byte("DROP TABLE t"),
			Display: "DROP TABLE t", Analysis: domain.Analysis{Actions: []string{"DROP"}, Targets: []string{"public.t"}}})
		if out.Forward || out.Denial == nil || out.Denial.ApprovalID == "" {
			t.Fatalf("statement was not denied with an approval id: %+v", out)
		}
		if want := fmt.Sprintf(c.want, out.Denial.ApprovalID); out.Denial.Message != want {
			t.Fatalf("withMCP=%v:\n got  %s\n want %s", c.withMCP, out.Denial.Message, want)
		}
	}
}

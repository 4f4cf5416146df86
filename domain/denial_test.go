package domain_test

import (
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// The spec's two denial texts, after "ERROR:  ", exactly.
const (
	specDenial    = "statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval 9f97…)"
	specDenialMCP = "approval 9f97…: waiting for approval; call the MCP tool approval_wait with the approval id, then resend the identical statement once it is approved (statement held for human approval)"
)

func TestDenialMessagePendingIsTheSpecText(t *testing.T) {
	for _, st := range []domain.Status{domain.StatusPending, ""} {
		if got := domain.DenialMessage("9f97…", st, "", false); got != specDenial {
			t.Errorf("status %q without MCP:\n got %q\nwant %q", st, got, specDenial)
		}
		if got := domain.DenialMessage("9f97…", st, "", true); got != specDenialMCP {
			t.Errorf("status %q with MCP:\n got %q\nwant %q", st, got, specDenialMCP)
		}
	}
}

func TestDenialMessageOtherStatuses(t *testing.T) {
	cases := []struct {
		st     domain.Status
		reason string
		want   string
	}{
		{"APPROVED", "", "statement held for human approval: another request is using the approval; resend the identical statement once it is approved (approval A1)"},
		{"PROCESSING", "", "statement held for human approval: another request is using the approval; resend the identical statement once it is approved (approval A1)"},
		{"REJECTED", "", "statement held for human approval: rejected by a person; do not resend; only a person can ask again (approval A1)"},
		{"REJECTED", "not during the freeze", "statement held for human approval: rejected by a person (not during the freeze); do not resend; only a person can ask again (approval A1)"},
		{"REVOKED", "", "statement held for human approval: approval revoked by a person; do not resend; only a person can ask again (approval A1)"},
		{"EXECUTED", "", "statement held for human approval: the approval was already used; do not resend; only a person can ask again (approval A1)"},
		{"EXPIRED", "", "statement held for human approval: the approval expired; do not resend; only a person can ask again (approval A1)"},
		{"ON_HOLD", "", "statement held for human approval: approval status ON_HOLD; do not resend; only a person can ask again (approval A1)"},
	}
	for _, tc := range cases {
		if got := domain.DenialMessage("A1", tc.st, tc.reason, false); got != tc.want {
			t.Errorf("%s/%q:\n got %q\nwant %q", tc.st, tc.reason, got, tc.want)
		}
		mcp := domain.DenialMessage("A1", tc.st, tc.reason, true)
		if !strings.HasPrefix(mcp, "approval A1: ") || !strings.HasSuffix(mcp, " (statement held for human approval)") {
			t.Errorf("%s with MCP: %q does not lead with the id", tc.st, mcp)
		}
		if domain.NextFor(tc.st) == domain.NextStop && strings.Contains(mcp, "approval_wait") {
			t.Errorf("%s with MCP: %q sends the agent to wait on a final status", tc.st, mcp)
		}
	}
}

func TestDeniedValueAndOtherTexts(t *testing.T) {
	for kind, want := range map[domain.DenialKind]string{
		domain.DeniedForApproval: "review", domain.DeniedByPolicy: "policy", domain.DeniedUnavailable: "policy", domain.DeniedTooLarge: "policy",
	} {
		if got := (domain.Denial{Kind: kind}).DeniedValue(); got != want {
			t.Errorf("kind %d: X-Hoop-Denied %q, want %q", kind, got, want)
		}
	}
	if got, want := domain.PolicyMessage("no-drop-db", "dropping databases is not allowed"),
		"statement denied by policy no-drop-db: dropping databases is not allowed"; got != want {
		t.Errorf("PolicyMessage = %q", got)
	}
	if got, want := domain.PolicyMessage("p", ""), "statement denied by policy p: this statement is not allowed on this listener"; got != want {
		t.Errorf("PolicyMessage without a message = %q", got)
	}
	if got := domain.UnavailableMessage("db-destructive", "connection refused"); !strings.Contains(got, "rule db-destructive") ||
		!strings.Contains(got, "Control Plane is unreachable: connection refused") || !strings.Contains(got, "nothing was run") {
		t.Errorf("UnavailableMessage = %q", got)
	}
	if got := domain.TokenRefusedMessage("db-destructive"); !strings.Contains(got, "rule db-destructive") ||
		!strings.Contains(got, "the Control Plane refused the Sidecar token") || strings.Contains(got, "unreachable") ||
		!strings.Contains(got, "nothing was run") {
		t.Errorf("TokenRefusedMessage = %q", got)
	}
}

// Only an approval denial carries the approval's fields; any other says
// policy and nothing else (spec, "Find the approval in the denial").
func TestDenialFields(t *testing.T) {
	for _, c := range []struct {
		name string
		d    domain.Denial
		want []domain.Field
	}{
		{"pending in return mode", domain.Denial{Kind: domain.DeniedForApproval, ApprovalID: "A1", Status: "PENDING", RetryAfter: true},
			[]domain.Field{{"X-Hoop-Denied", "review"}, {"X-Hoop-Approval-Id", "A1"}, {"X-Hoop-Review-Id", "A1"},
				{"X-Hoop-Approval-Status", "PENDING"}, {"X-Hoop-Review-Status", "PENDING"}, {"Retry-After", "5"}}},
		{"rejected", domain.Denial{Kind: domain.DeniedForApproval, ApprovalID: "A1", Status: "REJECTED"},
			[]domain.Field{{"X-Hoop-Denied", "review"}, {"X-Hoop-Approval-Id", "A1"}, {"X-Hoop-Review-Id", "A1"},
				{"X-Hoop-Approval-Status", "REJECTED"}, {"X-Hoop-Review-Status", "REJECTED"}}},
		{"status unread", domain.Denial{Kind: domain.DeniedForApproval, ApprovalID: "A1"},
			[]domain.Field{{"X-Hoop-Denied", "review"}, {"X-Hoop-Approval-Id", "A1"}, {"X-Hoop-Review-Id", "A1"}}},
		{"no id: no empty id field", domain.Denial{Kind: domain.DeniedForApproval, Status: "PENDING"},
			[]domain.Field{{"X-Hoop-Denied", "review"}}},
		{"policy", domain.Denial{Kind: domain.DeniedByPolicy}, []domain.Field{{"X-Hoop-Denied", "policy"}}},
		{"policy holding an id and a retry", domain.Denial{Kind: domain.DeniedByPolicy, ApprovalID: "A1", Status: "PENDING", RetryAfter: true},
			[]domain.Field{{"X-Hoop-Denied", "policy"}}},
		{"unavailable", domain.Denial{Kind: domain.DeniedUnavailable, RetryAfter: true}, []domain.Field{{"X-Hoop-Denied", "policy"}}},
	} {
		got := c.d.Fields()
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: field %d = %v, want %v", c.name, i, got[i], c.want[i])
			}
		}
	}
}

package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/domain"
)

// The spec's "Status and next" table, row by row, plus strings it calls
// "any other".
func TestNextForEveryRow(t *testing.T) {
	cases := []struct {
		status domain.Status
		next   domain.Next
	}{
		{"PENDING", "wait"},
		{"APPROVED", "resend_identical_statement"},
		{"PROCESSING", "wait"},
		{"REJECTED", "stop"},
		{"REVOKED", "stop"},
		{"EXECUTED", "stop"},
		{"EXPIRED", "stop"},
		{"ON_HOLD", "stop"}, // any other
		{"pending", "stop"}, // statuses are exact strings
		{"", "stop"},        // no status at all
	}
	for _, tc := range cases {
		if got := domain.NextFor(tc.status); got != tc.next {
			t.Errorf("NextFor(%q) = %q, want %q", tc.status, got, tc.next)
		}
	}
	if len(domain.KnownStatuses) != 7 {
		t.Fatalf("KnownStatuses has %d entries, want the spec's 7", len(domain.KnownStatuses))
	}
}

func TestStatusPredicates(t *testing.T) {
	open := map[domain.Status]bool{"PENDING": true, "APPROVED": true, "PROCESSING": true}
	for _, s := range domain.KnownStatuses {
		if !s.IsKnown() {
			t.Errorf("%s not known", s)
		}
		if s.IsOpen() != open[s] {
			t.Errorf("%s IsOpen = %v", s, s.IsOpen())
		}
		if s.IsDecided() != (s != "PENDING") {
			t.Errorf("%s IsDecided = %v", s, s.IsDecided())
		}
	}
	if u := domain.ParseStatus("ON_HOLD"); u != "ON_HOLD" || u.IsKnown() || u.IsOpen() || !u.IsDecided() {
		t.Fatalf("unknown status: kept=%q known=%v open=%v decided=%v", u, u.IsKnown(), u.IsOpen(), u.IsDecided())
	}
	if domain.Status("").IsDecided() {
		t.Fatal(`"" counts as decided`)
	}
}

// The spec's example instruction, exactly.
const specApproved = "Approved. Resend the identical statement, byte for byte, to listener payments. It runs once."

func TestInstructionEveryStatusBothFamilies(t *testing.T) {
	a := domain.Approval{ID: "9f97", ListenerName: "payments", ApprovalRule: "payments-approvers"}
	families := map[domain.Family]struct{ own, other string }{
		domain.FamilyApproval: {"approval_wait", "review_"},
		domain.FamilyReview:   {"review_wait", "approval_"},
	}
	for f, names := range families {
		for _, st := range append(domain.KnownStatuses, "ON_HOLD") {
			got := domain.Instruction(a, st, f)
			if strings.Contains(got, names.other) {
				t.Errorf("family %v, %s: %q names the other family's tools", f, st, got)
			}
			switch domain.NextFor(st) {
			case domain.NextWait:
				if !strings.Contains(got, "call "+names.own+" with this id again") || !strings.Contains(got, "Do not resend yet") {
					t.Errorf("family %v, %s: %q does not send the agent to %s", f, st, got, names.own)
				}
			case domain.NextStop:
				if !strings.Contains(got, "Stop") && !strings.Contains(got, "Do not resend.") {
					t.Errorf("family %v, %s: %q does not say stop", f, st, got)
				}
			}
		}
		if got := domain.Instruction(a, domain.StatusApproved, f); got != specApproved {
			t.Errorf("family %v APPROVED: %q, want the spec's %q", f, got, specApproved)
		}
	}
	want := map[domain.Status]string{
		"PENDING":    "Waiting for a person to decide. Do not resend yet; call approval_wait with this id again.",
		"PROCESSING": "Another request is using this approval; the upstream's answer spends it or gives it back. Do not resend yet; call approval_wait with this id again.",
		"REJECTED":   "Rejected. Do not resend. Only a person can ask again.",
		"REVOKED":    "Revoked by a person. Do not resend. Only a person can ask again.",
		"EXECUTED":   "Already executed: the approval was spent by an earlier resend. Do not resend. Only a person can ask again.",
		"EXPIRED":    "Expired before it was used. Do not resend. Only a person can ask again.",
		"ON_HOLD":    `Status "ON_HOLD" is not one this Sidecar knows. Stop; a person checks the approval request in the Control Plane.`,
	}
	for st, w := range want {
		if got := domain.Instruction(a, st, domain.FamilyApproval); got != w {
			t.Errorf("%s: %q, want %q", st, got, w)
		}
	}
}

func TestInstructionDetails(t *testing.T) {
	exp := time.Date(2026, 9, 29, 16, 32, 11, 0, time.FixedZone("CEST", 2*3600))
	a := domain.Approval{ListenerName: "payments", ExpiresAt: &exp, RejectionReason: "not during the freeze"}
	if got, want := domain.Instruction(a, domain.StatusApproved, domain.FamilyReview),
		specApproved+" Resend it before 2026-09-29T14:32:11Z."; got != want {
		t.Errorf("APPROVED with a time limit: %q, want %q", got, want)
	}
	if got, want := domain.Instruction(a, domain.StatusRejected, domain.FamilyApproval),
		"Rejected: not during the freeze. Do not resend. Only a person can ask again."; got != want {
		t.Errorf("REJECTED with a reason: %q, want %q", got, want)
	}
}

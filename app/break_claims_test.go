package app

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// breakListener is a return-mode listener with one approval rule (time limit
// limit) for DELETE, spending as spend.
func breakListener(t *testing.T, core *Core, spend ports.SpendOn, limit time.Duration) *Listener {
	t.Helper()
	rule := domain.ApprovalRule{Name: "db-destructive", Match: domain.Match{Actions: []string{"DELETE"}}, TimeLimit: limit}
	if err := rule.Match.Compile(); err != nil {
		t.Fatal(err)
	}
	return core.Listener(ListenerSettings{Name: "pg", Protocol: "postgres", Mode: ModeReturn, SpendOn: spend,
		Approvals: []domain.ApprovalRule{rule}})
}

var breakDelete = Statement{Identity: "agent", Canonical: []byte("DELETE FROM invoices WHERE id = 42"),
	Display: "DELETE FROM invoices WHERE id = 42", Analysis: domain.Analysis{Actions: []string{"DELETE"}}}

// retriedPastTheLimit is the HTTP client's keyed-write retry (calls.go
// Claim → transport.go write/retried, which repeats a try that ran out of
// the per-exchange timeout): the first claim try is applied by the Control
// Plane and its answer lost; the retry with the same key arrives once the
// approval's time limit has passed, and the reference Control Plane answers
// it 409 claim_lost with the current state, PROCESSING (store.ClaimedBy
// refuses a repeat after expires_at). The client returns that as won=false,
// err=nil.
type retriedPastTheLimit struct {
	*fakecp.CP
	clock *testClock
	once  sync.Once
}

func (r *retriedPastTheLimit) Claim(ctx context.Context, id, fp string, spend ports.SpendOn, key ports.ClaimKey) (domain.Approval, bool, error) {
	first := false
	r.once.Do(func() { first = true })
	if !first {
		return r.CP.Claim(ctx, id, fp, spend, key)
	}
	r.CP.Claim(ctx, id, fp, spend, key) // try 1: applied, answer lost (timed out)
	r.clock.add(2 * time.Second)        // the retry lands after expires_at
	return r.CP.Claim(ctx, id, fp, spend, key)
}

// FINDING (MEDIUM, stuck PROCESSING). Under spend_approval_on: accepted the
// ordinary path of Check claims once with a fresh key; when the client's
// retry of that claim is answered claim_lost with status PROCESSING (its
// first try was applied, the retry came after the time limit), Check just
// denies with PROCESSING. Nothing was forwarded, nobody holds a Ticket, the
// key is forgotten (an answer arrived), and PROCESSING never lapses: every
// resend reuses the request and is denied "PROCESSING" until a person
// revokes it. reclaim handles the same answer with release (a keyed
// give-back, refused by the Control Plane if another attempt holds the
// claim); the direct path does not.
func TestBreakDirectClaimLostToItsOwnRetryLeavesProcessing(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 12, 6, 1, 0, 0, 0, time.UTC)}
	fake := fakecp.New(clock.Now)
	cp := &retriedPastTheLimit{CP: fake, clock: clock}
	core := NewCore(CoreOptions{Sidecar: "s", CP: cp, Clock: clock})
	l := breakListener(t, core, ports.SpendOnAccepted, time.Minute)

	out := l.Check(context.Background(), breakDelete)
	if out.Forward || out.Denial == nil {
		t.Fatalf("first send: %+v, want held", out)
	}
	id := out.Denial.ApprovalID
	if err := fake.Decide(id, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	clock.add(59 * time.Second) // the resend comes in the last second of the time limit
	out = l.Check(context.Background(), breakDelete)
	if out.Forward {
		t.Fatalf("resend: forwarded after the time limit")
	}
	t.Logf("resend denied: %+v", out.Denial)
	if st := statusOf(t, fake, id); st == domain.StatusProcessing {
		t.Fatalf("approval %s left PROCESSING with nothing forwarded and no ticket: the claim the Sidecar knows is its own "+
			"(key sent, answer claim_lost PROCESSING) is never given back; want it released (EXPIRED)", id)
	}
}

func mustHeld(t *testing.T, out Outcome) string {
	t.Helper()
	if out.Forward || out.Denial == nil || out.Denial.ApprovalID == "" {
		t.Fatalf("%+v, want held for approval", out)
	}
	return out.Denial.ApprovalID
}

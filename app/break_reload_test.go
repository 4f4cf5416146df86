package app

import (
	"context"
	"testing"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// FINDING (MEDIUM: stuck PROCESSING after a configuration reload). A lost
// claim is remembered without the spend mode it was sent with; reclaim
// repeats it, and release decides whether to give it back, with the
// listener's settings of the resend. A claim sent under
// spend_approval_on: accepted (applied: PROCESSING, answer lost), then a
// reload to spend_approval_on: sent, then the resend: the repeat asks for
// EXECUTED, the Control Plane answers claim_lost PROCESSING (the key won,
// but for another target status), and release skips the give-back because
// the resend's settings say "sent". The approval stays PROCESSING forever
// with nothing forwarded, though the Sidecar holds its key.
func TestBreakLostClaimAcrossASpendModeReloadIsStuck(t *testing.T) {
	fake := fakecp.New(nil)
	fp := "v1:reload"
	id := approvedFor(t, fake, fp, 0)
	core := NewCore(CoreOptions{Sidecar: "s", CP: fake})
	before := &ListenerSettings{Name: "l", SpendOn: ports.SpendOnAccepted}
	after := &ListenerSettings{Name: "l", SpendOn: ports.SpendOnSent}
	fake.LoseClaimAnswers.Store(1)
	if _, _, err := core.Gate.claim(context.Background(), before, lostClaim{id: id, key: "k1", until: time.Time{}, spend: before.SpendOn}, fp); err == nil {
		t.Fatal("claim answer not lost")
	}
	out, done := core.Gate.reclaim(context.Background(), ports.AuditEvent{}, after, "r", fp)
	t.Logf("resend after the reload: done=%v", done)
	if out.Forward {
		// Fixed: the repeat claims with its own spend mode (accepted), wins,
		// and forwards once with a Ticket that settles the approval.
		if out.Ticket == nil {
			t.Fatalf("forwarded without a Ticket: the PROCESSING claim would never be settled: %+v", out)
		}
		out.Ticket.Spend()
	}
	if st := statusOf(t, fake, id); st == domain.StatusProcessing {
		t.Fatalf("approval %s PROCESSING under k1, which this Sidecar holds, with nothing forwarded: neither repeated "+
			"with its own spend mode (it would win and run once) nor given back", id)
	}
}

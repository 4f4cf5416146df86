package app_test

import (
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// The Control Plane applies a claim and its answer is lost: the resend is
// denied as unavailable, and the next identical resend repeats the claim
// with the same key, wins it and is forwarded, once, under both spend
// modes. No new request is filed for a person to approve again.
func TestLostClaimAnswerIsWonByTheResend(t *testing.T) {
	for _, spend := range []ports.SpendOn{ports.SpendOnSent, ports.SpendOnAccepted} {
		t.Run(string(spend), func(t *testing.T) {
			e := newEnv(t, envOpts{spend: spend})
			id := mustDeny(t, e.check(deleteInvoice)).ApprovalID
			if err := e.cp.Decide(id, domain.StatusApproved, ""); err != nil {
				t.Fatal(err)
			}
			e.cp.LoseClaimAnswers.Store(1)
			if d := mustDeny(t, e.check(deleteInvoice)); d.Kind != domain.DeniedUnavailable {
				t.Fatalf("resend whose claim answer was lost: %+v, want denied as unavailable", d)
			}
			o := e.check(deleteInvoice)
			if !o.Forward {
				t.Fatalf("the next resend: %+v, want forwarded (its claim was applied)", o)
			}
			o.Ticket.Spend()
			if st := e.status(t, id); st != domain.StatusExecuted {
				t.Fatalf("approval %s, want EXECUTED", st)
			}
			d := mustDeny(t, e.check(deleteInvoice))
			if d.ApprovalID == id || d.Status != domain.StatusPending {
				t.Fatalf("after the run: %+v, want a new PENDING request (it ran once)", d)
			}
			if n := len(e.cp.Records()); n != 2 {
				t.Fatalf("%d requests filed, want 2 (the first, and one after it ran)", n)
			}
			want := []string{"deny_approval", "deny_unavailable", "forward_approved", "settle_accepted", "deny_approval"}
			if got := e.audit.decisions(); !reflect.DeepEqual(got, want) {
				t.Fatalf("audit %v, want %v", got, want)
			}
		})
	}
}

// A claim lost by the resend's repeat (a person revoked the approval in
// between) is dropped: the statement takes the ordinary path and is denied
// with the approval's status.
func TestLostClaimRevokedMeanwhileIsDenied(t *testing.T) {
	e := newEnv(t, envOpts{spend: ports.SpendOnAccepted})
	id := mustDeny(t, e.check(deleteInvoice)).ApprovalID
	_ = e.cp.Decide(id, domain.StatusApproved, "")
	e.cp.LoseClaimAnswers.Store(1)
	mustDeny(t, e.check(deleteInvoice))
	if err := e.cp.Decide(id, domain.StatusRevoked, ""); err != nil {
		t.Fatal(err)
	}
	d := mustDeny(t, e.check(deleteInvoice))
	if d.Kind != domain.DeniedForApproval || d.ApprovalID != id || d.Status != domain.StatusRevoked {
		t.Fatalf("after a revoke: %+v, want the revoked approval's denial", d)
	}
}

// Concurrent resends after a lost claim answer: only one repeats the claim
// with its key, so the statement is forwarded once, never by two resends
// each told that the key won.
func TestLostClaimIsRepeatedByOneResendOnly(t *testing.T) {
	for range 20 {
		e := newEnv(t, envOpts{})
		id := mustDeny(t, e.check(deleteInvoice)).ApprovalID
		_ = e.cp.Decide(id, domain.StatusApproved, "")
		e.cp.LoseClaimAnswers.Store(1)
		mustDeny(t, e.check(deleteInvoice))
		var wg sync.WaitGroup
		var forwarded atomic.Int64
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if e.check(deleteInvoice).Forward {
					forwarded.Add(1)
				}
			}()
		}
		wg.Wait()
		if n := forwarded.Load(); n != 1 {
			t.Fatalf("%d of 8 concurrent resends forwarded, want exactly 1", n)
		}
	}
}

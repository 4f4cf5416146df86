package app

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// An open Ticket renews its claim's lease a third of the lease apart (the
// first after firstRenew) and stops once it is settled; a statement that is
// answered within firstRenew costs no renew.
func TestTicketRenewsItsLeaseUntilSettled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := fakecp.New(nil)
		fake.RenewLease = 9 * time.Second
		id := approvedFor(t, fake, "v1:lease", 0)
		core := NewCore(CoreOptions{Sidecar: "s", CP: fake})
		s := &ListenerSettings{Name: "l", SpendOn: ports.SpendOnAccepted}
		claimed, won, err := core.Gate.claim(context.Background(), s, lostClaim{id: id, key: "k1", until: time.Time{}, spend: s.SpendOn}, "v1:lease")
		if !won || err != nil {
			t.Fatalf("claim: %v %v", won, err)
		}
		tk := core.Gate.forwardClaimed(ports.AuditEvent{}, s, claimed, "k1", s.SpendOn).Ticket
		time.Sleep(firstRenew + 3*(9*time.Second/3) + time.Millisecond) // 1 s, then every 3 s: 4 renews
		synctest.Wait()
		if n := fake.Renews.Load(); n != 4 {
			t.Fatalf("%d renews in 10 s of a 9 s lease, want 4", n)
		}
		tk.Spend()
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := fake.Renews.Load(); n != 4 {
			t.Fatalf("%d renews after the settle, want none more (4)", n)
		}
		if st := statusOf(t, fake, id); st != domain.StatusExecuted {
			t.Fatalf("status %s, want EXECUTED", st)
		}

		quick := approvedFor(t, fake, "v1:quick", 0)
		claimed, _, _ = core.Gate.claim(context.Background(), s, lostClaim{id: quick, key: "k2", until: time.Time{}, spend: s.SpendOn}, "v1:quick")
		core.Gate.forwardClaimed(ports.AuditEvent{}, s, claimed, "k2", s.SpendOn).Ticket.Spend()
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := fake.Renews.Load(); n != 4 {
			t.Fatalf("a statement settled at once was renewed (%d renews, want 4)", n)
		}
	})
}

// A renew refused as a conflict (the Control Plane settled the request when
// its lease lapsed) ends the renewals; the Ticket's settle still runs.
func TestTicketStopsRenewingALostLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := fakecp.New(nil)
		id := approvedFor(t, fake, "v1:lost", 0)
		core := NewCore(CoreOptions{Sidecar: "s", CP: fake})
		s := &ListenerSettings{Name: "l", SpendOn: ports.SpendOnAccepted}
		claimed, _, _ := core.Gate.claim(context.Background(), s, lostClaim{id: id, key: "k1", until: time.Time{}, spend: s.SpendOn}, "v1:lost")
		tk := core.Gate.forwardClaimed(ports.AuditEvent{}, s, claimed, "k1", s.SpendOn).Ticket
		if err := fake.Decide(id, domain.StatusRevoked, ""); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := fake.Renews.Load(); n != 1 {
			t.Fatalf("%d renews after the conflict, want 1", n)
		}
		tk.Spend()
	})
}

// A claim whose answer was lost under spend_approval_on: accepted may hold
// the approval PROCESSING with nothing forwarded: the gate renews its lease
// while it remembers the claim, so it does not lapse to EXECUTED before the
// resend repeats it; the resend that wins it stops those renewals (its
// Ticket renews from then on).
func TestLostClaimKeepsItsLeaseUntilTheResend(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := fakecp.New(nil)
		fake.RenewLease = 9 * time.Second
		id := approvedFor(t, fake, "v1:lost-lease", 0)
		core := NewCore(CoreOptions{Sidecar: "s", CP: fake})
		s := &ListenerSettings{Name: "l", SpendOn: ports.SpendOnAccepted}
		fake.LoseClaimAnswers.Store(1)
		if _, _, err := core.Gate.claim(context.Background(), s, lostClaim{id: id, key: "k1", spend: s.SpendOn}, "v1:lost-lease"); err == nil {
			t.Fatal("claim answer not lost")
		}
		time.Sleep(firstRenew + 2*(9*time.Second/3) + time.Millisecond) // 1 s, then every 3 s: 3 renews
		synctest.Wait()
		if n := fake.Renews.Load(); n != 3 {
			t.Fatalf("%d renews of the lost claim in 7 s, want 3", n)
		}
		out, done := core.Gate.reclaim(context.Background(), ports.AuditEvent{}, s, "r", "v1:lost-lease")
		if !done || !out.Forward {
			t.Fatalf("the resend: done=%v %+v, want forwarded", done, out)
		}
		out.Ticket.Spend()
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := fake.Renews.Load(); n != 3 {
			t.Fatalf("%d renews after the resend won and settled, want 3", n)
		}
	})
}

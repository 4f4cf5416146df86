package app_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// A statement waiting for a person when shutdown begins ends at once with a
// shutdown denial naming its approval, which stays PENDING; a later one
// that would wait does not wait.
func TestShutdownEndsWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		e := newEnv(t, envOpts{mode: app.ModeWait, wait: time.Minute})
		got := make(chan app.Outcome, 1)
		go func() { got <- e.check(deleteInvoice) }()
		synctest.Wait() // filed, and waiting
		if len(e.cp.Records()) == 0 {
			t.Fatal("the statement was never filed")
		}
		e.core.Gate.BeginShutdown()
		var o app.Outcome
		select {
		case o = <-got:
		case <-time.After(5 * time.Second):
			t.Fatal("the wait did not end at shutdown")
		}
		d := mustDeny(t, o)
		if d.Kind != domain.DeniedShutdown || d.ApprovalID == "" || d.DeniedValue() != "review" {
			t.Fatalf("denial %+v, want a shutdown denial with the approval", d)
		}
		if st := e.status(t, d.ApprovalID); st != domain.StatusPending {
			t.Fatalf("approval %s after shutdown, want it left PENDING", st)
		}
		if d2 := mustDeny(t, e.check(deleteInvoice)); d2.Kind != domain.DeniedShutdown || d2.ApprovalID != d.ApprovalID {
			t.Fatalf("a statement after shutdown began: %+v", d2)
		}
		want := []string{"deny_shutdown", "deny_shutdown"}
		if got := e.audit.decisions(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("audit %v, want %v", got, want)
		}
	})
}

// SettleOpen waits for tickets their adapter settles, and settles as
// accepted (EXECUTED) those still open when its context ends, so no
// approval is left PROCESSING by a shutdown.
func TestSettleOpenLeavesNothingProcessing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, envOpts{spend: ports.SpendOnAccepted})
		var ids []string
		var tickets []*app.Ticket
		for _, p := range []string{"1", "2"} {
			st := stmt("DELETE", "DELETE FROM invoices WHERE id = $1", p)
			id := mustDeny(t, e.check(st)).ApprovalID
			_ = e.cp.Decide(id, domain.StatusApproved, "")
			o := e.check(st)
			if o.Ticket == nil {
				t.Fatalf("claim %s: %+v", id, o)
			}
			ids, tickets = append(ids, id), append(tickets, o.Ticket)
		}
		if n := e.core.Gate.OpenTickets(); n != 2 {
			t.Fatalf("OpenTickets = %d, want 2", n)
		}
		// The adapter settles the first one (refused) while SettleOpen waits;
		// the bubble's clock makes the sleep and the deadline exact, not waits.
		go func() { time.Sleep(50 * time.Millisecond); tickets[0].GiveBack(domain.NotSent("test")) }()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		if n := e.core.Gate.SettleOpen(ctx); n != 1 {
			t.Fatalf("SettleOpen settled %d itself, want 1", n)
		}
		if st := e.status(t, ids[0]); st != domain.StatusApproved {
			t.Fatalf("adapter-settled approval %s, want APPROVED", st)
		}
		if st := e.status(t, ids[1]); st != domain.StatusExecuted {
			t.Fatalf("approval left open at shutdown is %s, want EXECUTED", st)
		}
		if n := e.core.Gate.OpenTickets(); n != 0 {
			t.Fatalf("OpenTickets after SettleOpen = %d", n)
		}
		tickets[1].GiveBack(domain.NotSent("test")) // the adapter's late settle changes nothing
		if st := e.status(t, ids[1]); st != domain.StatusExecuted {
			t.Fatalf("a late settle moved the approval to %s", st)
		}
		// With nothing open it returns at once.
		if n := e.core.Gate.SettleOpen(context.Background()); n != 0 {
			t.Fatalf("SettleOpen with nothing open settled %d", n)
		}
	})
}

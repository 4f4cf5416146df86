package app_test

import (
	"reflect"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// Under spend_approval_on: sent an approval is spent only by a forward: a
// claim won for a statement that never reached the upstream (the upstream
// connection failed first) gives it back, so the agent's resend runs it,
// instead of the approval reading EXECUTED with nothing run. An upstream
// that received the statement and refused it spends it, as in every answer
// under sent.
func TestSentModeSpendsOnlyAForward(t *testing.T) {
	e := newEnv(t, envOpts{spend: ports.SpendOnSent})
	id := mustDeny(t, e.check(deleteInvoice)).ApprovalID
	if err := e.cp.Decide(id, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	o := e.check(deleteInvoice)
	if !o.Forward || o.Ticket == nil {
		t.Fatalf("approved resend: %+v, want forwarded with a ticket", o)
	}
	o.Ticket.GiveBack(domain.NotSent("no connection to the upstream: connection refused"))
	if st := e.status(t, id); st != domain.StatusApproved {
		t.Fatalf("approval %s after a resend that never reached the upstream, want APPROVED", st)
	}

	o = e.check(deleteInvoice)
	if !o.Forward || o.Ticket.ApprovalID() != id {
		t.Fatalf("the next resend: %+v, want forwarded under the same approval", o)
	}
	o.Ticket.Sent()
	o.Ticket.GiveBack(domain.RefusedBeforeRun("ErrorResponse 42P01")) // waits for Sent's settle; no effect
	if st := e.status(t, id); st != domain.StatusExecuted {
		t.Fatalf("approval %s after the written resend, want EXECUTED", st)
	}

	// A refusal without Sent spends too under sent (only NotSent gives back).
	id2 := mustDeny(t, e.check(deleteInvoice)).ApprovalID
	if err := e.cp.Decide(id2, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	o = e.check(deleteInvoice)
	o.Ticket.GiveBack(domain.RefusedBeforeRun("ErrorResponse 42P01"))
	if st := e.status(t, id2); st != domain.StatusExecuted {
		t.Fatalf("approval %s after the upstream refused the resend under sent, want EXECUTED", st)
	}
	want := []string{"deny_approval", "forward_approved", "settle_refused", "forward_approved", "settle_accepted",
		"deny_approval", "forward_approved", "settle_accepted"}
	if got := e.audit.decisions(); !reflect.DeepEqual(got, want) {
		t.Fatalf("audit %v, want %v", got, want)
	}
}

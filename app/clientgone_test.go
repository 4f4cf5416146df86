package app_test

import (
	"context"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// waitThenLeave, in a synctest bubble, runs deleteInvoice in wait mode with
// a ctx that ends with cause (nil: a plain cancel, as net/http and grpc do)
// as soon as the wait begins, and returns the outcome and the approval id the
// wait was for.
func waitThenLeave(t *testing.T, e *env, cause error) (app.Outcome, string) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	st := deleteInvoice
	var waited string
	st.OnWait = func(id string) {
		waited = id
		go func() {
			time.Sleep(50 * time.Millisecond) // a few polls happen first (the bubble's clock)
			cancel(cause)
		}()
	}
	done := make(chan app.Outcome, 1)
	go func() { done <- e.l.Check(ctx, st) }()
	select {
	case o := <-done:
		if waited == "" {
			t.Fatal("OnWait was not called in wait mode")
		}
		return o, waited
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not end when its client left")
	}
	return app.Outcome{}, ""
}

// A client that hangs up ends its wait: nothing is claimed or forwarded, the
// Control Plane is no longer read for it, a later approval stays APPROVED
// (not spent), and the audit trail says client_gone.
func TestWaitEndsWhenTheClientLeaves(t *testing.T) {
	for name, cause := range map[string]error{"ErrClientGone": app.ErrClientGone, "plain cancel": nil} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				defer readersEnd()
				e := newEnv(t, envOpts{mode: app.ModeWait, wait: time.Minute})
				o, id := waitThenLeave(t, e, cause)
				if o.Forward || !o.ClientGone || o.Canceled || o.Ticket != nil {
					t.Fatalf("outcome %+v, want ClientGone and nothing forwarded", o)
				}
				reads := e.cp.Gets.Load()
				time.Sleep(10 * e.core.Watcher.Interval)
				if more := e.cp.Gets.Load() - reads; more != 0 {
					t.Fatalf("%d Control Plane reads after the client left, want none", more)
				}
				if err := e.cp.Decide(id, domain.StatusApproved, ""); err != nil {
					t.Fatal(err)
				}
				time.Sleep(5 * e.core.Watcher.Interval)
				if st := e.status(t, id); st != domain.StatusApproved {
					t.Fatalf("approval %s after the person approved, want APPROVED (the gone client spent nothing)", st)
				}
				if got := e.audit.decisions(); !reflect.DeepEqual(got, []string{"client_gone"}) {
					t.Fatalf("audit %v, want [client_gone]", got)
				}
				if ev := e.audit.events[0]; ev.ApprovalID != id || ev.Status != "PENDING" {
					t.Fatalf("audit event %+v", ev)
				}
				// The approval is still there for the identical resend.
				o = e.check(deleteInvoice)
				if !o.Forward {
					t.Fatalf("identical resend after approval: %+v", o)
				}
				o.Ticket.Spend()
			})
		})
	}
}

// A client that cancels its statement (PostgreSQL CancelRequest) ends the
// wait too, with Canceled rather than ClientGone.
func TestWaitCanceledByTheClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		e := newEnv(t, envOpts{mode: app.ModeWait, wait: time.Minute})
		o, id := waitThenLeave(t, e, app.ErrStatementCanceled)
		if o.Forward || !o.Canceled || o.ClientGone || o.Denial == nil || o.Denial.ApprovalID != id {
			t.Fatalf("outcome %+v, want Canceled with the approval's denial", o)
		}
		if got := e.audit.decisions(); !reflect.DeepEqual(got, []string{"wait_canceled"}) {
			t.Fatalf("audit %v, want [wait_canceled]", got)
		}
	})
}

// An approval that is already APPROVED is not claimed for a client whose
// ctx has ended: the claim would spend it for a statement nobody runs.
func TestNoClaimForAClientThatLeft(t *testing.T) {
	e := newEnv(t, envOpts{mode: app.ModeWait})
	id := mustDeny(t, e.l.Check(context.Background(), func() app.Statement { s := deleteInvoice; s.ReturnMode = true; return s }())).ApprovalID
	if err := e.cp.Decide(id, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(app.ErrClientGone)
	if o := e.l.Check(ctx, deleteInvoice); o.Forward || !o.ClientGone {
		t.Fatalf("outcome %+v, want ClientGone", o)
	}
	if st := e.status(t, id); st != domain.StatusApproved {
		t.Fatalf("approval %s, want APPROVED", st)
	}
}

// OnWait is called only when the gate holds the statement in wait mode.
func TestOnWaitOnlyInWaitMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		e := newEnv(t, envOpts{mode: app.ModeWait, wait: 100 * time.Millisecond})
		calls := 0
		st := deleteInvoice
		st.OnWait = func(string) { calls++ }
		mustDeny(t, e.check(st)) // waits until wait_timeout
		st.ReturnMode = true
		mustDeny(t, e.check(st))
		sel := stmt("SELECT", "SELECT 1")
		sel.OnWait = st.OnWait
		e.check(sel)
		if calls != 1 {
			t.Fatalf("OnWait called %d times, want once (the wait-mode statement only)", calls)
		}
	})
}

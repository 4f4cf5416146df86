package app_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// decideInWait runs Decide on deleteInvoice in wait mode (wait_timeout one
// minute) in a goroutine; act runs once the statement waits, with the
// approval id. It returns the outcome and how long Decide took on the
// bubble's clock.
func decideInWait(t *testing.T, e *env, h *app.Hold, act func(id string)) (app.Outcome, time.Duration) {
	t.Helper()
	waiting := make(chan string, 1)
	inner := h.OnWait
	h.OnWait = func(id, listener string) {
		if listener != "pg" {
			t.Errorf("OnWait listener %q, want pg", listener)
		}
		if inner != nil {
			inner(id, listener)
		}
		waiting <- id
	}
	start := time.Now()
	done := make(chan app.Outcome, 1)
	go func() { done <- e.l.Decide(e.l.Settings(), deleteInvoice, h) }()
	if act != nil {
		select {
		case id := <-waiting:
			act(id)
		case o := <-done:
			t.Fatalf("Decide returned %+v before the statement waited", o)
		}
	}
	o := <-done
	return o, time.Since(start)
}

// quiesce lets the bubble's Control Plane readers (app.Watcher) see that no
// waiter is left and return, on the bubble's clock, before it ends.
func quiesce() { time.Sleep(time.Second) }

// An Interrupt on the session's handle ends the wait of the statement being
// decided (a PostgreSQL CancelRequest, a MySQL KILL QUERY): Canceled, and the
// watch that Decide started is stopped before it returns.
func TestDecideInterruptEndsTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer quiesce()
		e := newEnv(t, envOpts{mode: app.ModeWait, wait: time.Minute})
		var h app.WaitHandle
		watching := false
		hold := &app.Hold{Handle: &h, Watch: func(func(error)) func() {
			watching = true
			return func() { watching = false }
		}}
		o, took := decideInWait(t, e, hold, func(string) {
			if !h.Interrupt(app.ErrStatementCanceled) {
				t.Error("Interrupt during a wait reported no statement")
			}
		})
		if !o.Canceled || o.Forward || o.ClientGone || took >= time.Minute {
			t.Fatalf("outcome %+v after %v, want Canceled at once", o, took)
		}
		if watching {
			t.Fatal("the hang-up watch was still running after Decide returned")
		}
		if h.Interrupt(app.ErrStatementCanceled) {
			t.Fatal("Interrupt between statements reported a statement")
		}
	})
}

// A connection that ended before its statement began to wait (Close came
// first: the race a lock per listener lost) leaves nothing waiting: the
// statement ends at once as ClientGone, and so does every later one.
func TestDecideAfterCloseDoesNotWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer quiesce()
		e := newEnv(t, envOpts{mode: app.ModeWait, wait: time.Minute})
		var h app.WaitHandle
		h.Close()
		for range 2 {
			o, took := decideInWait(t, e, &app.Hold{Handle: &h}, nil)
			if !o.ClientGone || o.Forward || took >= time.Minute {
				t.Fatalf("outcome %+v after %v, want ClientGone at once", o, took)
			}
		}
	})
}

// A hang-up the listener's watch sees ends the wait as ClientGone; a cause
// the listener already has (Pending: a TDS Attention read before the wait)
// ends it as Canceled without waiting.
func TestDecideWatchAndPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer quiesce()
		e := newEnv(t, envOpts{mode: app.ModeWait, wait: time.Minute})
		hangUp := make(chan struct{})
		hold := &app.Hold{Watch: func(gone func(error)) func() {
			go func() {
				<-hangUp
				gone(errors.New("EOF"))
			}()
			return func() {}
		}}
		o, took := decideInWait(t, e, hold, func(string) { close(hangUp) })
		if !o.ClientGone || took >= time.Minute {
			t.Fatalf("outcome %+v after %v, want ClientGone at once", o, took)
		}
		o, took = decideInWait(t, e, &app.Hold{Pending: func() error { return app.ErrStatementCanceled }}, nil)
		if !o.Canceled || took >= time.Minute {
			t.Fatalf("outcome %+v after %v, want Canceled at once", o, took)
		}
	})
}

// A wait the Sidecar's shutdown ends calls OnShutdown with the shutdown
// denial, so the session ends after its answer; an allowed statement takes
// the fast path: no watch, no OnWait.
func TestDecideShutdownAndAllowed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer quiesce()
		e := newEnv(t, envOpts{mode: app.ModeWait, wait: time.Minute})
		var ended *domain.Denial
		hold := &app.Hold{OnShutdown: func(d *domain.Denial) { ended = d }}
		o, _ := decideInWait(t, e, hold, func(string) { e.core.Gate.BeginShutdown() })
		if ended == nil || ended.Kind != domain.DeniedShutdown || o.Denial != ended {
			t.Fatalf("OnShutdown got %+v, outcome %+v; want the shutdown denial", ended, o)
		}
		e2 := newEnv(t, envOpts{mode: app.ModeWait, wait: time.Minute})
		asked := false
		hold = &app.Hold{Watch: func(func(error)) func() { asked = true; return func() {} },
			OnWait: func(string, string) { asked = true }}
		if o := e2.l.Decide(e2.l.Settings(), stmt("SELECT", "SELECT 1"), hold); !o.Forward || asked {
			t.Fatalf("allowed statement: outcome %+v, watch or OnWait asked %v", o, asked)
		}
	})
}

package app

import (
	"context"
	"errors"
	"time"

	"github.com/hoophq/sidecar/ports"
)

// firstRenew is when an open Ticket first renews its lease: a third of the
// shortest lease a Control Plane gives (3 s), so a statement answered
// sooner costs no renew at all.
const firstRenew = time.Second

// renewEvery is how often a Ticket renews after the first renew, given the
// lease's length the Control Plane answered: a third of it, so two renews
// may fail before it lapses; firstRenew when the answer gave none.
func renewEvery(lease time.Duration) time.Duration {
	if lease <= 0 {
		return firstRenew
	}
	return max(lease/3, firstRenew)
}

// keepLease starts renewing t's lease (ports.Renewer) until t's settle has run,
// when the Control Plane has leases: a PROCESSING request whose Sidecar
// stops renewing is settled as EXECUTED, outcome unknown, when the lease
// lapses (docs/control-plane-api.md, "Renew"), so a Sidecar killed between
// claim and settle does not leave it PROCESSING.
func (t *Ticket) keepLease() {
	r, ok := t.gate.CP.(ports.Renewer)
	if !ok {
		return
	}
	t.stop = make(chan struct{})
	go t.renew(r)
}

func (t *Ticket) renew(r ports.Renewer) {
	wait := firstRenew
	for {
		timer := time.NewTimer(wait)
		select {
		case <-t.stop:
			timer.Stop()
			return
		case <-timer.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		lease, err := r.Renew(ctx, t.id, t.key)
		cancel()
		select {
		case <-t.stop:
			return
		default:
		}
		switch {
		case err == nil:
			wait = renewEvery(lease)
		case errors.Is(err, ports.ErrOlder) || errors.Is(err, ports.ErrNotFound):
			t.gate.Log.Debug("the Control Plane has no PROCESSING leases; not renewing", "approval_id", t.id, "error", err)
			return
		case t.settled():
			// The settle is under way: a refused renew says it landed;
			// another is tried again until the settle has run.
			if errors.Is(err, ports.ErrConflict) {
				return
			}
			wait = firstRenew
		case errors.Is(err, ports.ErrConflict):
			t.gate.Log.Error("the approval's lease was lost: the Control Plane settled it as EXECUTED (outcome unknown) or another claim holds it",
				"approval_id", t.id, "error", err)
			return
		default:
			t.gate.Log.Warn("could not renew the approval's lease; trying again", "approval_id", t.id, "error", err)
			wait = firstRenew
		}
	}
}

// keepLostLease renews the lease of
// fp's lost claim c while the gate remembers it: the Control Plane may
// have applied it (PROCESSING under c's key), and without renewals its
// lease would lapse to EXECUTED with nothing forwarded before the agent's
// resend repeats it. A renew refused (the claim was not applied, or the
// lease lapsed already) or a Control Plane without leases ends it, as does
// the claim leaving the memory (the resend took it: won, its Ticket renews;
// lost, it is released). One goroutine per key.
func (g *Gate) keepLostLease(fp string, c lostClaim) {
	r, ok := g.CP.(ports.Renewer)
	if !ok || !g.lost.startRenewing(c.key) {
		return
	}
	go func() {
		defer g.lost.stopRenewing(c.key)
		wait := firstRenew
		for {
			time.Sleep(wait)
			if !g.lost.holds(fp, c) {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			lease, err := r.Renew(ctx, c.id, c.key)
			cancel()
			switch {
			case err == nil:
				wait = renewEvery(lease)
			case errors.Is(err, ports.ErrUnavailable):
				wait = firstRenew
			default:
				return
			}
		}
	}()
}

// renewInFlight renews the lease of claim c while the claim is in flight,
// until the returned stop is called, when the Control Plane has leases.
// The client tries a claim up to three times (each up to
// control_plane.timeout): the first try may have been applied, its answer
// lost, and the lease it took would lapse to EXECUTED with nothing run
// before the last try is answered. Renewals start after firstRenew (a claim
// answered sooner costs none) and their errors are ignored: the claim may
// not have been applied yet, and a renew names its key, so it extends only
// this claim. Ticket.keepLease or keepLostLease take over once the claim is
// answered or lost.
func (g *Gate) renewInFlight(c lostClaim) (stop func()) {
	r, ok := g.CP.(ports.Renewer)
	if !ok {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(firstRenew):
			}
			rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
			_, err := r.Renew(rctx, c.id, c.key)
			rcancel()
			if errors.Is(err, ports.ErrOlder) || errors.Is(err, ports.ErrNotFound) {
				return // no leases to keep
			}
		}
	}()
	return func() { cancel(); <-done }
}

package app

import (
	"context"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// Approvals answers the agent-facing reads: the status path and the MCP
// tools. It never returns a statement (domain.Approval has none).
type Approvals struct {
	CP    ports.ControlPlane // nil when the Sidecar has no Control Plane
	Watch *Watcher
	Clock ports.Clock
}

// Limits of the MCP tools (spec, "Tools").
const (
	DefaultWaitSeconds = 60
	MaxWaitSeconds     = 300
	DefaultListLimit   = 20
	MaxListLimit       = 200
)

// HasControlPlane reports whether reads can be answered at all.
func (q *Approvals) HasControlPlane() bool { return q != nil && q.CP != nil }

// Status reads one approval request once. Errors: ErrNoControlPlane,
// ports.ErrNotFound, ports.ErrUnavailable, ports.ErrOlder.
func (q *Approvals) Status(ctx context.Context, id string) (domain.Approval, error) {
	if !q.HasControlPlane() {
		return domain.Approval{}, ErrNoControlPlane
	}
	return q.CP.Get(ctx, id)
}

// Wait reads the approval every 2 s (coalesced across waiters) until its next
// is no longer "wait" or timeout ends. timedOut is true when the timeout
// ended first (not an error); waited is the time spent, rounded down to
// whole seconds.
//
// A Control Plane outage during the wait does not end it: the reads go on
// and a decision read after the Control Plane is back is answered. Errors:
// ports.ErrNotFound, ports.ErrOlder and ports.ErrUnauthorized at once; a
// failure (ports.ErrUnavailable, …) only when the Control Plane is still
// failing when timeout ends (then a holds the last status read, if any);
// ctx's error when the caller left; ErrNoControlPlane.
func (q *Approvals) Wait(ctx context.Context, id string, timeout time.Duration) (a domain.Approval, timedOut bool, waited time.Duration, err error) {
	if !q.HasControlPlane() {
		return domain.Approval{}, false, 0, ErrNoControlPlane
	}
	start := q.Clock.Now()
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	a, decided, err := q.Watch.WaitDecided(wctx, id)
	waited = q.Clock.Now().Sub(start).Truncate(time.Second)
	if !decided && ctx.Err() != nil {
		return a, false, waited, ctx.Err()
	}
	if err != nil {
		return a, false, waited, err
	}
	return a, !decided, waited, nil
}

// List lists this Sidecar's approval requests, newest first, across every
// listener. status "" means any; limit must already be within 1..MaxListLimit.
func (q *Approvals) List(ctx context.Context, status domain.Status, limit int) ([]domain.Approval, error) {
	if !q.HasControlPlane() {
		return nil, ErrNoControlPlane
	}
	return q.CP.List(ctx, status, limit)
}

// View renders a for an agent (see domain.NewView).
func (q *Approvals) View(a domain.Approval, withInstruction bool, f domain.Family) domain.View {
	return domain.NewView(a, q.Clock.Now(), withInstruction, f)
}

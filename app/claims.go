package app

import (
	"context"
	"errors"
	"sync"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// maxUnsettledClaims bounds the claims a gate remembers whose answer was
// lost; past it the oldest-inserted is forgotten (its approval then reads
// as the Control Plane left it).
const maxUnsettledClaims = 4096

// lostClaim is a claim whose answer never arrived (the Control Plane may
// have applied it): the approval it was for and the key it was sent with.
type lostClaim struct {
	id  string
	key ports.ClaimKey
}

// lostClaims remembers, per fingerprint, the claim whose answer was lost,
// so the agent's identical resend asks again with the same key and is
// answered as the first claim would have been (docs/control-plane-api.md,
// "Claim"): a claim the Control Plane applied is won by the resend and the
// statement runs once, instead of the approval reading EXECUTED with
// nothing run. It lives in one Sidecar process; another replica does not
// know the key. The zero value is ready; it is safe for concurrent use.
type lostClaims struct {
	mu    sync.Mutex
	m     map[string]lostClaim
	order []string // fingerprints in insertion order, for the bound
}

func (l *lostClaims) remember(fp string, c lostClaim) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = make(map[string]lostClaim)
	}
	if _, ok := l.m[fp]; !ok {
		l.order = append(l.order, fp)
	}
	l.m[fp] = c
	for len(l.m) > maxUnsettledClaims && len(l.order) > 0 {
		delete(l.m, l.order[0])
		l.order = l.order[1:]
	}
}

// take removes and returns fp's lost claim: of concurrent resends of one
// statement only one repeats it (two repeats of a key that won would both
// be told they won, and both would forward).
func (l *lostClaims) take(fp string) (lostClaim, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.m[fp]
	if ok {
		delete(l.m, fp)
		if i := indexOf(l.order, fp); i >= 0 {
			l.order = append(l.order[:i], l.order[i+1:]...)
		}
	}
	return c, ok
}

// forget drops fp's lost claim if it is still c.
func (l *lostClaims) forget(fp string, c lostClaim) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m[fp] == c {
		delete(l.m, fp)
		if i := indexOf(l.order, fp); i >= 0 {
			l.order = append(l.order[:i], l.order[i+1:]...)
		}
	}
}

func indexOf(s []string, v string) int {
	for i := range s {
		if s[i] == v {
			return i
		}
	}
	return -1
}

// claim asks the Control Plane to spend approval id for fingerprint fp
// with key, detached from the client (a claim is never cut in half by a
// hang-up: spent at the Control Plane, yet not forwarded). When the answer
// is lost (ports.ErrUnavailable after the client's retries) the claim is
// remembered for fp, so the resend repeats it; any answer forgets it.
func (g *Gate) claim(ctx context.Context, s *ListenerSettings, id, fp string, key ports.ClaimKey) (domain.Approval, bool, error) {
	ap, won, err := g.CP.Claim(context.WithoutCancel(ctx), id, fp, s.SpendOn, key)
	c := lostClaim{id: id, key: key}
	if errors.Is(err, ports.ErrUnavailable) {
		g.lost.remember(fp, c)
		g.Log.Warn("the answer to a claim was lost; the identical resend asks again with the same claim key",
			"listener", s.Name, "approval_id", id, "error", err)
	} else {
		g.lost.forget(fp, c)
	}
	if err == nil {
		g.Metrics.Claim(s.Name, won)
	}
	return ap, won, err
}

// reclaim repeats fp's lost claim, if there is one, before anything is
// filed, taking it so that only this resend repeats it (claim remembers it
// again when the answer is lost again): done is true when that decided the statement (won: forwarded; the
// Control Plane still unreachable: denied as unavailable). A claim the
// Control Plane answers as lost leaves the statement to the ordinary path.
func (g *Gate) reclaim(ctx context.Context, audit ports.AuditEvent, s *ListenerSettings, rule, fp string) (Outcome, bool) {
	if ctx.Err() != nil {
		return Outcome{}, false
	}
	c, ok := g.lost.take(fp)
	if !ok {
		return Outcome{}, false
	}
	claimed, won, err := g.claim(ctx, s, c.id, fp, c.key)
	switch {
	case err != nil && errors.Is(err, ports.ErrUnavailable):
		return g.unavailable(audit, rule, err), true
	case err == nil && won:
		g.Log.Info("a claim whose answer was lost was won on the resend", "listener", s.Name, "approval_id", c.id)
		return g.forwardClaimed(audit, s, claimed, c.key), true
	}
	return Outcome{}, false
}

// forwardClaimed records a won claim and returns the Outcome that forwards
// the statement, with a Ticket under spend_approval_on: accepted.
func (g *Gate) forwardClaimed(audit ports.AuditEvent, s *ListenerSettings, claimed domain.Approval, key ports.ClaimKey) Outcome {
	audit.Decision, audit.ApprovalID, audit.Status = "forward_approved", claimed.ID, string(claimed.Status)
	g.record(audit)
	var t *Ticket
	if s.SpendOn == ports.SpendOnAccepted {
		t = &Ticket{gate: g, id: claimed.ID, key: key, audit: audit, finished: make(chan struct{})}
		g.lc.track(t)
	}
	return Outcome{Forward: true, Ticket: t}
}

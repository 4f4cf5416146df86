package app

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// maxUnsettledClaims bounds the statements (fingerprints) a gate remembers
// lost claims for; past it the oldest-inserted is forgotten (its approval
// then reads as the Control Plane left it).
const maxUnsettledClaims = 4096

// maxLostPerStatement bounds the lost claims kept for one fingerprint
// (concurrent sends of one statement, each with its own key, whose answers
// were all lost); past it the newest is not kept.
const maxLostPerStatement = 8

// lostClaim is a claim whose answer never arrived (the Control Plane may
// have applied it): the approval it was for, the key it was sent with, the
// approval's expires_at (zero without a time limit), after which it is not
// repeated, and the listener's spend mode when it claimed (the claim is
// PROCESSING in both; the mode says how its Ticket settles).
type lostClaim struct {
	id    string
	key   ports.ClaimKey
	until time.Time
	spend ports.SpendOn // spend_approval_on when it claimed (a reload may change the listener's)
}

// lostClaims remembers, per fingerprint, the claims whose answer was lost,
// so the agent's identical resend asks again with the same keys and is
// answered as the first claim would have been (docs/control-plane-api.md,
// "Claim"): a claim the Control Plane applied is won by the resend and the
// statement runs once, instead of the approval reading EXECUTED with nothing
// run. Every lost key is kept (any of them may be the one that won). It
// lives in one Sidecar process; another replica does not know the keys.
// The zero value is ready; it is safe for concurrent use.
type lostClaims struct {
	mu       sync.Mutex
	m        map[string][]lostClaim
	order    []string                // fingerprints in insertion order, for the bound
	renewing map[ports.ClaimKey]bool // keys whose lease a goroutine renews (keepLostLease)
}

// holds reports whether fp's lost claims hold c.
func (l *lostClaims) holds(fp string, c lostClaim) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.m[fp], c)
}

// startRenewing marks key as renewed and returns true, or returns false
// when it is already.
func (l *lostClaims) startRenewing(key ports.ClaimKey) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.renewing[key] {
		return false
	}
	if l.renewing == nil {
		l.renewing = make(map[ports.ClaimKey]bool)
	}
	l.renewing[key] = true
	return true
}

func (l *lostClaims) stopRenewing(key ports.ClaimKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.renewing, key)
}

// remember adds cs to fp's lost claims (a key kept already is not added
// twice).
func (l *lostClaims) remember(fp string, cs ...lostClaim) {
	if len(cs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = make(map[string][]lostClaim)
	}
	kept, ok := l.m[fp]
	if !ok {
		l.order = append(l.order, fp)
	}
	for _, c := range cs {
		if len(kept) < maxLostPerStatement && !slices.Contains(kept, c) {
			kept = append(kept, c)
		}
	}
	l.m[fp] = kept
	for len(l.m) > maxUnsettledClaims && len(l.order) > 0 {
		delete(l.m, l.order[0])
		l.order = l.order[1:]
	}
}

// take removes and returns fp's lost claims: of concurrent resends of one
// statement only one repeats them (two repeats of a key that won would both
// be told they won, and both would forward).
func (l *lostClaims) take(fp string) []lostClaim {
	l.mu.Lock()
	defer l.mu.Unlock()
	cs := l.m[fp]
	l.drop(fp)
	return cs
}

// forget drops c from fp's lost claims.
func (l *lostClaims) forget(fp string, c lostClaim) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept, ok := l.m[fp]
	if !ok {
		return
	}
	kept = slices.DeleteFunc(kept, func(k lostClaim) bool { return k == c })
	if len(kept) == 0 {
		l.drop(fp)
		return
	}
	l.m[fp] = kept
}

// drop removes fp; l.mu is held.
func (l *lostClaims) drop(fp string) {
	if _, ok := l.m[fp]; !ok {
		return
	}
	delete(l.m, fp)
	if i := slices.Index(l.order, fp); i >= 0 {
		l.order = slices.Delete(l.order, i, i+1)
	}
}

// claim asks the Control Plane to spend approval c.id (expiring at
// c.until, zero for none) for fingerprint fp with c.key (to PROCESSING),
// detached from the client (a claim is never cut in half by a hang-up:
// spent at the Control Plane, yet not forwarded). When the answer is lost
// (ports.ErrUnavailable after the client's retries) the claim is remembered
// for fp, so the resend repeats it; any answer forgets it. A claim lost to
// a PROCESSING approval is released: that may be this claim's own earlier
// try (its answer lost, the retry answered past the time limit), and its
// statement was never forwarded.
func (g *Gate) claim(ctx context.Context, s *ListenerSettings, c lostClaim, fp string) (domain.Approval, bool, error) {
	// Every claim moves the approval to PROCESSING, whatever the listener's
	// spend mode (Ticket): under sent it is spent once the statement was
	// written, so an approval whose statement never reached the upstream
	// is given back instead of reading EXECUTED with nothing run.
	endRenewals := g.renewInFlight(c)
	ap, won, err := g.CP.Claim(context.WithoutCancel(ctx), c.id, fp, ports.SpendOnAccepted, c.key)
	endRenewals()
	if errors.Is(err, ports.ErrUnavailable) {
		g.lost.remember(fp, c)
		g.keepLostLease(fp, c)
		g.Log.Warn("the answer to a claim was lost; the identical resend asks again with the same claim key",
			"listener", s.Name, "approval_id", c.id, "error", err)
	} else {
		g.lost.forget(fp, c)
	}
	if err == nil {
		g.Metrics.Claim(s.Name, won)
		if !won && ap.Status == domain.StatusProcessing {
			g.release(s, c)
		}
	}
	return ap, won, err
}

// reclaim repeats fp's lost claims, if there are any, before anything is
// filed, taking them so that only this resend repeats them (claim
// remembers one again when its answer is lost again): done is true when
// that decided the statement (one won: forwarded; the Control Plane still
// unreachable: denied as unavailable). Claims not reached are kept. A claim
// past its approval's time limit is not repeated but released (release), as
// claim releases one lost to PROCESSING; when none won the statement takes
// the ordinary path.
func (g *Gate) reclaim(ctx context.Context, audit ports.AuditEvent, s *ListenerSettings, rule, fp string) (Outcome, bool) {
	if ctx.Err() != nil {
		return Outcome{}, false
	}
	cs := g.lost.take(fp)
	for i, c := range cs {
		if !c.until.IsZero() && !g.Clock.Now().Before(c.until) {
			g.Log.Info("a claim whose answer was lost is not repeated: its approval's time limit has passed",
				"listener", s.Name, "approval_id", c.id)
			g.release(s, c)
			continue
		}
		claimed, won, err := g.claim(ctx, s, c, fp)
		switch {
		case err != nil && errors.Is(err, ports.ErrUnavailable):
			g.lost.remember(fp, cs[i+1:]...)
			return g.unavailable(audit, rule, err), true
		case err == nil && won:
			g.lost.remember(fp, cs[i+1:]...)
			g.Log.Info("a claim whose answer was lost was won on the resend", "listener", s.Name, "approval_id", c.id)
			return g.forwardClaimed(audit, s, claimed, c.key, c.spend), true
		}
	}
	return Outcome{}, false
}

// release gives back a lost claim that
// will not be repeated: if the Control Plane applied it, the approval is
// PROCESSING under its key with nothing forwarded, and nobody else would
// settle it. The settle carries the key, so it touches only that claim; it
// is sent only to a Control Plane that keeps claim keys (one that ignores
// them would give back whatever claim holds the approval), once.
func (g *Gate) release(s *ListenerSettings, c lostClaim) {
	if !ports.KeepsClaimKeys(g.CP) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := g.CP.Settle(ctx, c.id, c.key, false); err == nil {
		g.Log.Info("a lost claim that will not be repeated was given back: its statement was never forwarded",
			"listener", s.Name, "approval_id", c.id)
	}
}

// forwardClaimed records a won claim and returns the Outcome that forwards
// the statement, with the Ticket that settles it under spend (the
// listener's spend_approval_on when it claimed).
func (g *Gate) forwardClaimed(audit ports.AuditEvent, s *ListenerSettings, claimed domain.Approval, key ports.ClaimKey, spend ports.SpendOn) Outcome {
	audit.Decision, audit.ApprovalID, audit.Status = "forward_approved", claimed.ID, string(claimed.Status)
	g.record(audit)
	t := &Ticket{gate: g, id: claimed.ID, key: key, audit: audit, sent: spend != ports.SpendOnAccepted, finished: make(chan struct{})}
	g.lc.track(t)
	t.keepLease()
	return Outcome{Forward: true, Ticket: t}
}

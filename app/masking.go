package app

import (
	"errors"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/ports"
)

// MaskPlan returns the masking of the results of statement st on a
// listener with settings s (the same s the statement was decided with):
// nil when the listener has no masking rule or none applies to st, and
// then the adapter relays the result unread, as it does without masking.
// Call it once the gate forwarded st; it reads st's identities and text
// only when a rule's match asks for them.
func MaskPlan(s *ListenerSettings, st *Statement) *masking.Plan {
	if s == nil || s.Masking == nil {
		return nil
	}
	var f domain.Facts
	if s.Masking.NeedsFacts() {
		f = st.facts(s)
	}
	return s.Masking.For(st.Analysis, f)
}

// Masked records, once a statement's result has been sent, what plan p
// masked in it: a "masked" audit line with the count per rule (and the
// values sent unread under best_effort), and the masking metrics. withheld
// is the error a strict rule refused the result with (an
// *masking.UnreadableError), or nil; it makes the line "mask_withheld".
// A nil p, or one that masked, left and withheld nothing, records nothing.
// client and identity are the statement's (Statement.Client, .Identity).
func (g *Gate) Masked(s *ListenerSettings, client, identity string, p *masking.Plan, withheld error) {
	if p == nil {
		return
	}
	counts := p.Counts()
	if len(counts) == 0 && p.Uninspected == 0 && withheld == nil {
		return
	}
	e := ports.AuditEvent{Time: g.Clock.Now().UTC(), Listener: s.Name, Protocol: s.Protocol, Client: client,
		Identity: identity, Decision: "masked", Uninspected: p.Uninspected}
	var ue *masking.UnreadableError
	if errors.As(withheld, &ue) {
		e.Decision, e.Rule, e.Error = "mask_withheld", ue.Rule, ue.Error()
	} else if withheld != nil {
		e.Decision, e.Error = "mask_withheld", withheld.Error()
	}
	if len(counts) > 0 {
		e.Masked = make(map[string]int, len(counts))
	}
	mm, _ := g.Metrics.(ports.MaskingMetrics)
	for _, c := range counts {
		e.Masked[c.Rule] = c.Values
		if mm != nil {
			mm.Masked(s.Name, c.Rule, c.Values)
		}
	}
	if mm != nil && p.Uninspected > 0 {
		mm.Uninspected(s.Name, p.Uninspected)
	}
	g.record(e)
}

// Masked is Gate.Masked for a listener's adapter, which holds the Listener
// and not its gate: call it once per statement whose result was sent with
// a plan from MaskPlan (a nil plan records nothing).
func (l *Listener) Masked(s *ListenerSettings, client, identity string, p *masking.Plan, withheld error) {
	l.gate.Masked(s, client, identity, p, withheld)
}

package postgres

import (
	"bytes"
	"encoding/binary"
	"strings"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// endUnit decides the extended-protocol messages held back since the last
// Sync or Flush. final is true at a Sync; trailer is the Sync or Flush
// message (nil when the unit ends for another reason). Every Execute in the
// unit is asked about; if any is held, none of the unit is forwarded.
func (s *session) endUnit(final bool, trailer []byte) error {
	msgs := s.pending
	s.pending, s.pendingSize, s.pendingExecs = nil, 0, 0
	defer s.reusePending(msgs)
	b := s.currentBatch()
	if s.discarding {
		if !final {
			return nil
		}
		s.discarding, s.batch = false, nil
		s.push(&expect{kind: expSync, unit: b.unit})
		return s.forward(trailer)
	}
	var execs []*pendingMsg
	for i := range msgs {
		if msgs[i].exec != nil {
			execs = append(execs, &msgs[i])
		}
	}
	for _, m := range msgs {
		if m.refuse != nil {
			s.dropUnsent()
			return s.hold(m.refuse, b, final)
		}
	}
	claims, denial := s.gateExecutions(execs)
	if denial != nil {
		s.dropUnsent()
		return s.deny(*denial, b, final)
	}
	exps := make([]*expect, 0, len(msgs)+1)
	for _, m := range msgs {
		e := m.exp
		e.unit, e.prep = b.unit, m.prep
		if m.exec != nil && m.exec.claim != nil {
			e.ticket = m.exec.claim.state
		}
		if m.exec != nil && b.set != nil { // b.set: read by gateExecutions
			if e.mask = s.maskFor(b.set, &m.exec.st, m.exec.res); e.mask != nil {
				exps = append(exps, &expect{kind: expMaskDesc, unit: b.unit, target: e})
			}
		}
		if m.exec != nil {
			s.cursors.declared(m.exec.res)
		}
		exps = append(exps, e)
	}
	for _, c := range claims {
		b.unit.tickets = append(b.unit.tickets, c.state)
	}
	if final {
		exps = append(exps, &expect{kind: expSync, unit: b.unit})
		s.batch = nil
	}
	s.push(exps...)
	s.markSent()
	for _, m := range msgs {
		if m.exp.mask != nil {
			if err := s.forward(describeFor(m.exec.portal)); err != nil {
				return err
			}
		}
		if err := s.forward(m.frame); err != nil {
			return err
		}
	}
	if trailer != nil {
		return s.forward(trailer)
	}
	return nil
}

// reusePending keeps the array of a decided unit's messages for the next
// unit (a pipeline of Bind/Execute/Sync per transaction would otherwise grow
// a new one each time), unless it is large or a new unit began meanwhile.
func (s *session) reusePending(msgs []pendingMsg) {
	if cap(msgs) == 0 || cap(msgs) > 64 || cap(s.pending) > 0 {
		return
	}
	clear(msgs[:cap(msgs)])
	s.pending = msgs[:0]
}

// claimed is an approval claimed for some Executes of a unit.
type claimed struct {
	state *ticketState
}

// gateExecutions asks the gate about a unit's Executes, with one settings
// snapshot for the whole Sync batch (batchRules). The ones a rule covers are asked about
// first, as one statement when there are several (one approval for the
// unit, whose canonical bytes are theirs in order); the others one by one.
// It returns the approvals claimed in accepted mode, or the outcome that
// denies the unit when anything is held (claims made are then given back).
func (s *session) gateExecutions(execs []*pendingMsg) ([]*claimed, *app.Outcome) {
	if len(execs) == 0 {
		return nil, nil
	}
	set := s.batchRules()
	parts := make([]domain.Analysis, len(execs))
	for i, m := range execs {
		m.exec.st.Analysis = app.Deciding(set, m.exec.parts)
		parts[i] = m.exec.st.Analysis
	}
	covered := app.Covered(set, parts)
	isCovered := make([]bool, len(execs))
	var claims []*claimed
	giveBack := func() {
		for _, c := range claims {
			c.state.t.GiveBack(domain.NotSent("another statement of its unit was held, so none of the unit was forwarded"))
		}
	}
	if len(covered) > 0 {
		st := execs[covered[0]].exec.st
		if len(covered) > 1 {
			st = combine(set, execs, covered)
		}
		out := s.check(set, st)
		if !out.Forward {
			return nil, &out
		}
		c := &claimed{state: s.claim(out.Ticket, len(covered))}
		for _, i := range covered {
			isCovered[i] = true
			if out.Ticket != nil {
				execs[i].exec.claim = c
			}
		}
		if out.Ticket != nil {
			claims = append(claims, c)
		}
	}
	for i, m := range execs {
		if isCovered[i] {
			continue
		}
		out := s.check(set, m.exec.st)
		if !out.Forward { // not with one snapshot; fail closed anyway
			giveBack()
			return nil, &out
		}
		if out.Ticket != nil {
			c := &claimed{state: s.claim(out.Ticket, 1)}
			m.exec.claim = c
			claims = append(claims, c)
		}
	}
	return claims, nil
}

// combine makes one statement of several covered Executes of a unit.
func combine(set *app.ListenerSettings, execs []*pendingMsg, covered []int) app.Statement {
	var canon bytes.Buffer
	canon.WriteString("\x00hoop-pipeline-v1")
	var shown []string
	parts := make([]domain.Analysis, 0, len(covered))
	for _, i := range covered {
		st := execs[i].exec.st
		canon.Write(binary.BigEndian.AppendUint32(nil, uint32(len(st.Canonical))))
		canon.Write(st.Canonical)
		shown = append(shown, st.Display)
		parts = append(parts, st.Analysis)
	}
	return app.Statement{Canonical: canon.Bytes(), Display: strings.Join(shown, ";\n-- then, in the same pipeline:\n"),
		Analysis: app.Deciding(set, parts)}
}

// deny answers a unit the gate did not forward: the gate's denial, or
// 57014 for a wait the client cancelled. A client that hung up gets nothing:
// app.ErrClientGone ends the session, so nothing it sent is forwarded.
func (s *session) deny(out app.Outcome, b *batch, final bool) error {
	switch {
	case out.ClientGone:
		return app.ErrClientGone
	case out.Canceled:
		return s.hold(canceledError(), b, final)
	}
	return s.hold(denialError(out.Denial, s.l.WithMCP()), b, final)
}

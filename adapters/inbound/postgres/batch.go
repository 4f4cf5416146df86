package postgres

import (
	"bytes"
	"encoding/binary"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// abortSQL is sent to the upstream, in place of a held batch's remainder,
// when part of the batch already ran in an implicit transaction: its syntax
// error makes the upstream roll that part back, as one error in a pipeline
// does. The client never sees that error.
const abortSQL = "HOOP SIDECAR: statement held for approval, this pipeline is rolled back"

// endUnit decides the extended-protocol messages held back since the last
// Sync or Flush. final is true at a Sync; trailer is the Sync or Flush
// message (nil when the unit ends for another reason). Every Execute in the
// unit is asked about; if any is held, none of the unit is forwarded.
func (s *session) endUnit(final bool, trailer []byte) error {
	msgs := s.pending
	s.pending, s.pendingSize, s.pendingExecs = nil, 0, 0
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
	claims, denial, canceled := s.gateExecutions(execs)
	if denial != nil {
		s.dropUnsent()
		return s.hold(s.denial(*denial, canceled), b, final)
	}
	exps := make([]*expect, 0, len(msgs)+1)
	for _, m := range msgs {
		e := m.exp
		e.unit, e.prep = b.unit, m.prep
		if m.exec != nil && m.exec.claim != nil {
			e.ticket = m.exec.claim.state
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
		if err := s.forward(m.frame); err != nil {
			return err
		}
	}
	if len(execs) > 0 {
		b.forwardedExec = true
	}
	if trailer != nil {
		return s.forward(trailer)
	}
	return nil
}

// claimed is an approval claimed for some Executes of a unit.
type claimed struct {
	state *ticketState
}

// gateExecutions asks the gate about a unit's Executes. The ones a rule
// covers are asked about first, as one statement when there are several
// (one approval for the unit, whose canonical bytes are theirs in order);
// the others one by one. It returns the approvals claimed in accepted mode,
// or the denial when anything is held (claims made are then given back).
func (s *session) gateExecutions(execs []*pendingMsg) ([]*claimed, *app.Outcome, bool) {
	if len(execs) == 0 {
		return nil, nil, false
	}
	set := s.l.Settings()
	parts := make([]domain.Analysis, len(execs))
	for i, m := range execs {
		parts[i] = m.exec.st.Analysis
	}
	covered := app.Covered(set, parts)
	isCovered := make([]bool, len(execs))
	var claims []*claimed
	giveBack := func() {
		for _, c := range claims {
			c.state.t.Settle(false)
		}
	}
	if len(covered) > 0 {
		st := execs[covered[0]].exec.st
		if len(covered) > 1 {
			st = combine(set, execs, covered)
		}
		out, canceled := s.check(st)
		if !out.Forward {
			return nil, &out, canceled
		}
		c := &claimed{state: &ticketState{t: out.Ticket, need: len(covered)}}
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
		out, canceled := s.check(m.exec.st)
		if !out.Forward { // the rules changed under us: hold, give the claims back
			giveBack()
			return nil, &out, canceled
		}
		if out.Ticket != nil {
			c := &claimed{state: &ticketState{t: out.Ticket, need: 1}}
			m.exec.claim = c
			claims = append(claims, c)
		}
	}
	return claims, nil, false
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

// denial renders the gate's denial, or the cancel of a wait.
func (s *session) denial(out app.Outcome, canceled bool) *pgproto3.ErrorResponse {
	if canceled {
		return canceledError()
	}
	return denialError(out.Denial, s.l.WithMCP())
}

// hold answers a held unit: the denial as an ErrorResponse placed where the
// upstream's error would be, then (at a Sync) the upstream's own
// ReadyForQuery, so the transaction status is the real one and an open
// transaction stays open. Before a Sync, the rest of the batch is discarded
// until it comes. When part of the batch already ran in an implicit
// transaction, the upstream is made to roll it back.
func (s *session) hold(errResp *pgproto3.ErrorResponse, b *batch, final bool) error {
	own := b != nil && b == s.batch
	if b == nil {
		b = &batch{unit: &unit{}}
	}
	entries := []*expect{{kind: expInject, msg: encode(errResp)}}
	var toUpstream [][]byte
	if b.forwardedExec && s.waitDrained(b.start) == 'I' {
		entries = append(entries, &expect{kind: expSwallow, unit: b.unit})
		toUpstream = append(toUpstream, encode(&pgproto3.Parse{Query: abortSQL}))
	}
	if final {
		entries = append(entries, &expect{kind: expSync, unit: b.unit})
		toUpstream = append(toUpstream, encode(&pgproto3.Sync{}))
		if own {
			s.batch = nil
		}
	} else {
		s.discarding = true
		if len(toUpstream) > 0 {
			toUpstream = append(toUpstream, encode(&pgproto3.Flush{}))
		}
	}
	s.push(entries...)
	for _, m := range toUpstream {
		if err := s.forward(m); err != nil {
			return err
		}
	}
	return s.uw.Flush()
}

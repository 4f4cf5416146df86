package postgres

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/adapters/inbound/postgres/analyzer"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// query decides one simple-protocol Query message. Its statements are one
// unit: if any is held, none runs. The canonical bytes are the query text.
func (s *session) query(frame []byte) error {
	if len(s.pending) > 0 { // a Query amid unsynced extended messages
		if err := s.endUnit(false, nil); err != nil {
			return err
		}
		if s.discarding {
			return nil
		}
	}
	var q pgproto3.Query
	if err := q.Decode(body(frame)); err != nil {
		return protoErr("malformed Query message: %v", err)
	}
	if e := s.refusal(q.String, false); e != nil {
		return s.hold(e, nil, true)
	}
	res := s.p.cache.Analyze(q.String)
	parts := s.resolve(res)
	st := app.Statement{Canonical: []byte(q.String), Display: s.displaySQL(q.String, res),
		Analysis: app.Deciding(s.l.Settings(), parts)}
	out, canceled := s.check(st)
	if !out.Forward {
		return s.hold(s.denial(out, canceled), nil, true)
	}
	u := &unit{}
	if out.Ticket != nil {
		u.tickets = []*ticketState{{t: out.Ticket}}
	}
	s.push(&expect{kind: expQuery, unit: u})
	if err := s.forward(frame); err != nil {
		return err
	}
	s.apply(res)
	return nil
}

// functionCall decides a FunctionCall (the fastpath interface, e.g. libpq's
// large-object functions): action FUNCTION_CALL, function oid:<n>.
func (s *session) functionCall(frame []byte) error {
	if len(s.pending) > 0 {
		if err := s.endUnit(false, nil); err != nil {
			return err
		}
		if s.discarding {
			return nil
		}
	}
	b := body(frame)
	if len(b) < 4 {
		return protoErr("malformed FunctionCall message")
	}
	fn := fmt.Sprintf("oid:%d", binary.BigEndian.Uint32(b))
	canonical := append([]byte("\x00hoop-fastpath-v1"), b...)
	st := app.Statement{Canonical: canonical, Display: "function call " + fn + " (fastpath)",
		Analysis: domain.Analysis{Actions: []string{"FUNCTION_CALL"}, Functions: []string{fn}}}
	out, canceled := s.check(st)
	if !out.Forward {
		return s.hold(s.denial(out, canceled), nil, true)
	}
	u := &unit{}
	if out.Ticket != nil {
		u.tickets = []*ticketState{{t: out.Ticket}}
	}
	s.push(&expect{kind: expFuncCall, unit: u})
	return s.forward(frame)
}

// resolve returns one analysis per statement, adding to EXECUTE name the
// analysis of the query PREPAREd under that name on this session (UNKNOWN
// when the Sidecar did not see it).
func (s *session) resolve(res analyzer.Result) []domain.Analysis {
	parts := make([]domain.Analysis, 0, len(res.Statements))
	for _, st := range res.Statements {
		a := st.Analysis
		if st.Execute != "" {
			inner := domain.Analysis{Actions: []string{analyzer.Unknown}}
			if p, ok := s.sqlPrepared[st.Execute]; ok {
				inner = p.Analysis
			}
			a = merge(a, inner)
		}
		parts = append(parts, a)
	}
	return parts
}

// displaySQL is the approver's rendering of a SQL text: the text, plus the
// query behind each EXECUTE of a statement PREPAREd on this session.
func (s *session) displaySQL(sql string, res analyzer.Result) string {
	var b strings.Builder
	b.WriteString(sql)
	for _, st := range res.Statements {
		if p, ok := s.sqlPrepared[st.Execute]; ok && st.Execute != "" {
			fmt.Fprintf(&b, "\n-- EXECUTE %s runs: %s", st.Execute, p.Text)
		}
	}
	return b.String()
}

// apply records the session-level effects of statements that were
// forwarded: PREPARE and DEALLOCATE.
func (s *session) apply(res analyzer.Result) {
	for _, st := range res.Statements {
		switch {
		case st.Prepare != nil:
			p := *st.Prepare
			p.Text = st.Text
			s.sqlPrepared[p.Name] = p
		case st.DeallocateAll:
			clear(s.sqlPrepared)
		case st.Deallocate != "":
			delete(s.sqlPrepared, st.Deallocate)
		}
	}
}

func merge(a, b domain.Analysis) domain.Analysis {
	return domain.Analysis{Actions: union(a.Actions, b.Actions), Targets: union(a.Targets, b.Targets),
		Functions: union(a.Functions, b.Functions)}
}

func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		found := false
		for _, y := range out {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/adapters/inbound/postgres/analyzer"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
	"github.com/hoophq/sidecar/internal/hangup"
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
	if s.batch == nil {
		s.beginUnit()
	}
	if e := s.refusal(q.String, false); e != nil {
		return s.hold(e, nil, true)
	}
	res, err := s.analyze(q.String)
	if err != nil {
		return err
	}
	if e := s.uncheckable(res); e != nil {
		return s.hold(e, nil, true)
	}
	exp := &expect{kind: expQuery, unit: &unit{}}
	r := s.resolve(res, exp, true)
	if r.refuse != nil {
		s.dropUnsent()
		return s.hold(r.refuse, nil, true)
	}
	set := s.rules()
	st := app.Statement{Canonical: append([]byte(q.String), r.canonical()...), Display: q.String + r.display(),
		Analysis: app.Deciding(set, r.parts), Unread: domain.Unread{Why: r.unread}}
	out := s.check(set, st)
	if !out.Forward {
		s.dropUnsent()
		return s.deny(out, nil, true)
	}
	if out.Ticket != nil {
		exp.unit.tickets = []*ticketState{s.claim(out.Ticket, 0)}
	}
	exp.mask = s.maskFor(set, &st, res)
	s.cursors.declared(res)
	s.push(exp)
	s.markSent()
	return s.forward(frame)
}

// analyze reads sql with the analyzer. A text large enough to wait for the
// parse budget waits only while its client is connected
// (analyzerkit.WhileConnected): when the client hangs up first, the
// analysis is uncheckable and analyzerkit.ErrGoneUnread ends the session, so nothing of
// the text is forwarded.
func (s *session) analyze(sql string) (analyzer.Result, error) {
	return analyzerkit.AnalyzeConnected(len(sql), s.clientWatch(), func(ctx context.Context) analyzer.Result {
		return s.p.cache.AnalyzeContext(ctx, sql)
	})
}

// clientWatch watches the client connection while the session does not
// read it (internal/hangup.Watcher).
func (s *session) clientWatch() func(gone func(error)) (stop func()) {
	return hangup.Watcher(s.cr, s.client.SetReadDeadline)
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
		Analysis: domain.Analysis{Actions: []string{actionFunctionCall}, Functions: []string{fn}, Effects: fastpathEffects}}
	out := s.check(s.rules(), st)
	if !out.Forward {
		return s.deny(out, nil, true)
	}
	u := &unit{}
	if out.Ticket != nil {
		u.tickets = []*ticketState{s.claim(out.Ticket, 0)}
	}
	s.push(&expect{kind: expFuncCall, unit: u})
	return s.forward(frame)
}

// maxNesting bounds a chain of EXECUTEs of statements that EXECUTE others.
const maxNesting = 8

// resolution is what the statements of a text run, resolved in order as
// PostgreSQL runs them.
type resolution struct {
	parts  []domain.Analysis // one per statement
	runs   []ran             // every EXECUTE met, depth first
	refuse *pgproto3.ErrorResponse
	// unread says what the text runs that the listener cannot see (an
	// EXECUTE of a name it never saw prepared): app.Statement.Unread.
	unread string
}

// ran is one EXECUTE: the name and the statement it runs (nil: unknown).
type ran struct {
	name string
	stmt *prepared
}

// resolve returns one analysis per statement of res. An EXECUTE adds the
// analysis of the statement it runs, looked up when it runs (UNKNOWN when
// the Sidecar knows none of that name); a PREPARE or DEALLOCATE changes the
// names for the statements after it. exp is the expectation whose answers
// confirm those changes: per statement for a Query (perStatement: the i-th
// statement's change counts once i+1 statements completed), else once.
func (s *session) resolve(res analyzer.Result, exp *expect, perStatement bool) resolution {
	var r resolution
	for i, st := range res.Statements {
		need := 1
		if perStatement {
			need = i + 1
		}
		r.parts = append(r.parts, s.resolveOne(st, exp, need, 0, &r))
	}
	return r
}

func (s *session) resolveOne(st analyzer.Statement, exp *expect, need, depth int, r *resolution) domain.Analysis {
	a := st.Analysis
	if st.Execute != "" {
		p := s.stmt(st.Execute)
		r.runs = append(r.runs, ran{st.Execute, p})
		switch {
		case p == nil:
			a = domain.Merge(a, domain.UnreadRun())
			if r.unread == "" {
				r.unread = "EXECUTE " + quote(st.Execute) + " runs a prepared statement the listener never saw"
			}
		case p.prepare != nil:
			a = domain.Merge(a, p.prepare.Analysis)
		case depth >= maxNesting:
			if r.refuse == nil {
				r.refuse = unanalysable("EXECUTE runs prepared statements that EXECUTE others, nested too deep to check")
			}
		default:
			for _, inner := range p.res.Statements {
				a = domain.Merge(a, s.resolveOne(inner, exp, need, depth+1, r))
			}
		}
	}
	switch {
	case st.Prepare != nil:
		pp := *st.Prepare
		pp.Text = st.Text
		s.change(&effect{name: pp.Name, stmt: &prepared{query: st.Text, prepare: &pp}, exp: exp, need: need})
	case st.DeallocateAll:
		s.change(&effect{all: true, exp: exp, need: need})
	case st.Deallocate != "":
		s.change(&effect{name: st.Deallocate, exp: exp, need: need})
	}
	return a
}

// canonical returns what the EXECUTEs add to the canonical bytes: each name
// and the statement it runs, so that EXECUTE of another statement under the
// same name is another statement. Empty without EXECUTE.
func (r *resolution) canonical() []byte {
	var b []byte
	for _, x := range r.runs {
		b = append(b, "\x00hoop-execute-v1"...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(x.name)))
		b = append(b, x.name...)
		switch {
		case x.stmt == nil:
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32)
		default:
			id := canonicalBind(x.stmt.query, x.stmt.oids, nil, nil)
			if x.stmt.prepare != nil {
				id = append([]byte("\x00sql\x00"), id...)
			}
			b = binary.BigEndian.AppendUint32(b, uint32(len(id)))
			b = append(b, id...)
		}
	}
	return b
}

// display is the approver's note of what each EXECUTE runs.
func (r *resolution) display() string {
	var b strings.Builder
	for _, x := range r.runs {
		if x.stmt == nil {
			fmt.Fprintf(&b, "\n-- EXECUTE %s runs: a statement unknown to the Sidecar", x.name)
			continue
		}
		fmt.Fprintf(&b, "\n-- EXECUTE %s runs: %s", x.name, x.stmt.query)
	}
	return b.String()
}

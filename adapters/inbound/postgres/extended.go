package postgres

import (
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/adapters/inbound/postgres/analyzer"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// maxPending is how many bytes of extended-protocol messages are held back
// before a Sync or Flush; past it they are decided and forwarded as a unit.
const maxPending = 32 << 20

// prepared is a statement made by Parse, or by SQL PREPARE (prepare set).
type prepared struct {
	query string   // the Parse's query text, or the PREPARE statement's text
	oids  []uint32 // parameter types given in Parse
	res   analyzer.Result
	// prepare is set for SQL PREPARE: its name and what its query does.
	prepare *analyzer.Prepared
	// learned are the parameter types the upstream described (under
	// session.mu); for the approver's rendering only.
	learned []uint32
}

// portal is a statement bound by Bind: what an Execute of it runs.
type portal struct {
	stmt      *prepared // nil when the Sidecar knows no statement of that name
	stmtName  string
	canonical []byte
	display   string
}

// pendingMsg is an extended-protocol message not yet forwarded.
type pendingMsg struct {
	frame []byte
	exp   *expect   // what the upstream answers it with; confirms its names changes
	prep  *prepared // Describe of a statement
	exec  *execution
	// refuse is set on a Parse whose text cannot be checked: the unit is
	// answered with it.
	refuse *pgproto3.ErrorResponse
}

// execution is one Execute: the statement the gate decides. Its analysis
// (st.Analysis) is picked from parts when the unit is decided, with the
// unit's one settings snapshot.
type execution struct {
	portal string   // the portal it runs
	claim  *claimed // the approval claimed for it, once decided
	st     app.Statement
	parts  []domain.Analysis       // one per statement it runs
	refuse *pgproto3.ErrorResponse // it cannot be checked
	// res is the analysis of the statement it runs, when the listener saw
	// it parsed: its COPY options and cursors, for the masking.
	res analyzer.Result
}

// batch is the extended-protocol messages of one Sync, possibly forwarded
// in parts at Flush.
type batch struct {
	unit *unit
	// set is the listener's settings the batch read first (batchRules):
	// every decision up to its Sync uses them, including the parts
	// forwarded early (forwardsEarly) or at a Flush.
	set *app.ListenerSettings
}

// batchRules returns the settings of the current batch, read once for it.
func (s *session) batchRules() *app.ListenerSettings {
	b := s.currentBatch()
	if b.set == nil {
		b.set = s.rules()
	}
	return b.set
}

func (s *session) currentBatch() *batch {
	if s.batch == nil {
		s.beginUnit()
		s.batch = &batch{unit: &unit{}}
	}
	return s.batch
}

// extended records one Parse, Bind, Describe, Execute or Close; it is
// decided at the next Sync or Flush.
func (s *session) extended(typ byte, frame []byte) error {
	s.currentBatch()
	m := pendingMsg{frame: frame, exp: &expect{}}
	early := false
	switch typ {
	case 'P':
		var msg pgproto3.Parse
		if err := msg.Decode(body(frame)); err != nil {
			return protoErr("malformed Parse message: %v", err)
		}
		m.exp.kind = expParse
		res, err := s.analyze(msg.Query)
		if err != nil {
			return err
		}
		if m.refuse = s.refusal(msg.Query, s.pendingExecute()); m.refuse == nil {
			m.refuse = s.uncheckable(res)
		}
		early = s.forwardsEarly(res, m.refuse)
		s.change(&effect{name: msg.Name, exp: m.exp, need: 1,
			stmt: &prepared{query: msg.Query, oids: msg.ParameterOIDs, res: res}})
	case 'B':
		var msg pgproto3.Bind
		if err := msg.Decode(body(frame)); err != nil {
			return protoErr("malformed Bind message: %v", err)
		}
		m.exp.kind = expBind
		s.change(&effect{portal: true, name: msg.DestinationPortal, port: s.bind(&msg), exp: m.exp, need: 1})
	case 'D':
		var msg pgproto3.Describe
		if err := msg.Decode(body(frame)); err != nil {
			return protoErr("malformed Describe message: %v", err)
		}
		m.exp.kind = expDescribe
		if msg.ObjectType == 'S' {
			m.prep = s.peekStmt(msg.Name)
		}
	case 'E':
		var msg pgproto3.Execute
		if err := msg.Decode(body(frame)); err != nil {
			return protoErr("malformed Execute message: %v", err)
		}
		m.exp.kind = expExecute
		m.exec = s.execution(msg.Portal, m.exp)
		m.refuse = m.exec.refuse
	case 'C':
		var msg pgproto3.Close
		if err := msg.Decode(body(frame)); err != nil {
			return protoErr("malformed Close message: %v", err)
		}
		m.exp.kind = expClose
		s.change(&effect{portal: msg.ObjectType != 'S', name: msg.Name, exp: m.exp, need: 1})
	}
	s.pending = append(s.pending, m)
	s.pendingSize += len(frame)
	if m.exec != nil {
		s.pendingExecs++
	}
	if s.pendingSize > maxPending || early {
		return s.endUnit(false, nil)
	}
	return nil
}

// forwardsEarly reports whether the messages held back, ending with a Parse
// (its text's analysis res, its refusal refuse), can go to the upstream now
// instead of at the unit's Sync or Flush: none of them is an Execute (a
// Parse, Bind, Describe or Close runs nothing) or is refused, and no
// approval or policy rule of the listener covers any statement of the
// Parse's text, which is plain (no PREPARE, EXECUTE or DEALLOCATE, whose
// meaning depends on the session's names). Then PostgreSQL sees each
// message when the client sends it, as directly: its statement_timeout
// covers a client's stall after Parse (issue 31 point 1; pgx issue #2640).
// The Executes are still decided at the Sync or Flush, with the rules of
// that moment; a unit held then is answered as after a Flush.
func (s *session) forwardsEarly(res analyzer.Result, refuse *pgproto3.ErrorResponse) bool {
	if refuse != nil || s.pendingExecs > 0 {
		return false
	}
	for _, m := range s.pending {
		if m.refuse != nil {
			return false
		}
	}
	if res.Err != nil || len(res.Statements) == 0 {
		return false
	}
	parts := make([]domain.Analysis, len(res.Statements))
	for i, x := range res.Statements {
		if x.Prepare != nil || x.Execute != "" || x.Deallocate != "" || x.DeallocateAll {
			return false
		}
		parts[i] = x.Analysis
	}
	return len(app.Covered(s.batchRules(), parts)) == 0
}

// pendingExecute reports whether the messages held back hold an Execute.
func (s *session) pendingExecute() bool { return s.pendingExecs > 0 }

// bind builds the portal of a Bind: the canonical bytes and rendering of
// the statement with its parameters.
func (s *session) bind(b *pgproto3.Bind) *portal {
	p := &portal{stmt: s.stmt(b.PreparedStatement), stmtName: b.PreparedStatement}
	query := ""
	var oids, shown []uint32
	if p.stmt != nil {
		query, oids = p.stmt.query, p.stmt.oids
		s.mu.Lock()
		shown = p.stmt.learned
		s.mu.Unlock()
		if len(oids) > 0 {
			shown = oids
		}
	}
	p.canonical = canonicalBind(query, oids, b.ParameterFormatCodes, b.Parameters)
	p.display = displayBind(query, shown, b.ParameterFormatCodes, b.Parameters)
	if p.stmt == nil || p.stmt.prepare != nil { // unknown, or PREPAREd in SQL: bound by name
		p.display = "-- statement " + quote(b.PreparedStatement) + "\n" + p.display
		p.canonical = append(append([]byte("\x00hoop-stmt-v1\x00"), b.PreparedStatement...), p.canonical...)
	}
	return p
}

// execution returns what an Execute of the named portal runs. exp is the
// Execute's expectation: it confirms a PREPARE or DEALLOCATE that the
// statement runs.
func (s *session) execution(name string, exp *expect) *execution {
	p := s.portalNamed(name)
	if p == nil {
		return &execution{portal: name, st: app.Statement{Canonical: []byte("\x00hoop-portal-v1\x00" + name),
			Display: "-- execute of portal " + quote(name) + " unknown to the Sidecar",
			Unread:  domain.Unread{Why: "an Execute of portal " + quote(name) + ", which the listener never saw bound"}},
			parts: []domain.Analysis{domain.UnreadRun()}}
	}
	e := &execution{portal: name, st: app.Statement{Canonical: p.canonical, Display: p.display}}
	switch {
	case p.stmt == nil:
		e.parts = []domain.Analysis{domain.UnreadRun()}
		e.st.Unread.Why = "a Bind of a prepared statement the listener never saw parsed"
	case p.stmt.prepare != nil:
		e.parts = []domain.Analysis{p.stmt.prepare.Analysis}
	default:
		r := s.resolve(p.stmt.res, exp, false)
		e.parts = r.parts
		if extra := r.canonical(); len(extra) > 0 {
			e.st.Canonical = append(append([]byte(nil), p.canonical...), extra...)
		}
		e.st.Display += r.display()
		e.st.Unread.Why = r.unread
		e.refuse = r.refuse
		e.res = p.stmt.res
	}
	return e
}

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

// prepared is a statement created by Parse.
type prepared struct {
	query string
	oids  []uint32 // parameter types given in Parse
	res   analyzer.Result
	// learned are the parameter types the upstream described (under
	// session.mu); for the approver's rendering only.
	learned []uint32
}

// portal is a statement bound by Bind: what an Execute of it runs.
type portal struct {
	stmt      *prepared // nil when the Sidecar never saw the statement
	stmtName  string
	canonical []byte
	display   string
}

// pendingMsg is an extended-protocol message not yet forwarded.
type pendingMsg struct {
	frame []byte
	kind  expKind
	prep  *prepared // Describe of a statement
	exec  *execution
	// refuse is set on a Parse whose text cannot be checked: the unit is
	// answered with it.
	refuse *pgproto3.ErrorResponse
}

// execution is one Execute: the statement the gate decides.
type execution struct {
	st  app.Statement
	res analyzer.Result // for PREPARE / DEALLOCATE effects once forwarded
}

// batch is the extended-protocol messages of one Sync, possibly forwarded
// in parts at Flush.
type batch struct {
	unit *unit
	// start is how many expectations were pushed before the batch: once
	// that many were answered, txStatus is the status the batch began in.
	start         uint64
	forwardedExec bool
}

func (s *session) currentBatch() *batch {
	if s.batch == nil {
		s.mu.Lock()
		s.batch = &batch{unit: &unit{}, start: s.pushed}
		s.mu.Unlock()
	}
	return s.batch
}

// extended records one Parse, Bind, Describe, Execute or Close; it is
// decided at the next Sync or Flush.
func (s *session) extended(typ byte, frame []byte) error {
	s.currentBatch()
	m := pendingMsg{frame: frame}
	switch typ {
	case 'P':
		var msg pgproto3.Parse
		if err := msg.Decode(body(frame)); err != nil {
			return protoErr("malformed Parse message: %v", err)
		}
		m.kind = expParse
		m.refuse = s.refusal(msg.Query, s.pendingExecute())
		s.setStmt(msg.Name, &prepared{query: msg.Query, oids: msg.ParameterOIDs, res: s.p.cache.Analyze(msg.Query)})
	case 'B':
		var msg pgproto3.Bind
		if err := msg.Decode(body(frame)); err != nil {
			return protoErr("malformed Bind message: %v", err)
		}
		m.kind = expBind
		s.setPortal(msg.DestinationPortal, s.bind(&msg))
	case 'D':
		var msg pgproto3.Describe
		if err := msg.Decode(body(frame)); err != nil {
			return protoErr("malformed Describe message: %v", err)
		}
		m.kind = expDescribe
		if msg.ObjectType == 'S' {
			m.prep = s.stmts[msg.Name]
		}
	case 'E':
		var msg pgproto3.Execute
		if err := msg.Decode(body(frame)); err != nil {
			return protoErr("malformed Execute message: %v", err)
		}
		m.kind = expExecute
		m.exec = s.execution(msg.Portal)
	case 'C':
		var msg pgproto3.Close
		if err := msg.Decode(body(frame)); err != nil {
			return protoErr("malformed Close message: %v", err)
		}
		m.kind = expClose
		if msg.ObjectType == 'S' {
			s.setStmt(msg.Name, nil)
		} else {
			s.setPortal(msg.Name, nil)
		}
	}
	s.pending = append(s.pending, m)
	s.pendingSize += len(frame)
	if s.pendingSize > maxPending {
		return s.endUnit(false, nil)
	}
	return nil
}

// pendingExecute reports whether the messages held back hold an Execute.
func (s *session) pendingExecute() bool {
	for _, m := range s.pending {
		if m.exec != nil {
			return true
		}
	}
	return false
}

// bind builds the portal of a Bind: the canonical bytes and rendering of
// the statement with its parameters.
func (s *session) bind(b *pgproto3.Bind) *portal {
	p := &portal{stmt: s.stmts[b.PreparedStatement], stmtName: b.PreparedStatement}
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
	} else if sp, ok := s.sqlPrepared[b.PreparedStatement]; ok {
		query = sp.Text // a statement PREPAREd in SQL, bound by name
	}
	p.canonical = canonicalBind(query, oids, b.ParameterFormatCodes, b.Parameters)
	p.display = displayBind(query, shown, b.ParameterFormatCodes, b.Parameters)
	if p.stmt == nil {
		p.display = "-- statement " + quote(b.PreparedStatement) + "\n" + p.display
		p.canonical = append(append([]byte("\x00hoop-stmt-v1\x00"), b.PreparedStatement...), p.canonical...)
	}
	return p
}

// execution returns what an Execute of the named portal runs.
func (s *session) execution(name string) *execution {
	p := s.portals[name]
	if p == nil {
		return &execution{st: app.Statement{Canonical: []byte("\x00hoop-portal-v1\x00" + name),
			Display:  "-- execute of portal " + quote(name) + " unknown to the Sidecar",
			Analysis: domain.Analysis{Actions: []string{analyzer.Unknown}}}}
	}
	e := &execution{st: app.Statement{Canonical: p.canonical, Display: p.display}}
	switch {
	case p.stmt != nil:
		e.res = p.stmt.res
		e.st.Analysis = app.Deciding(s.l.Settings(), s.resolve(e.res))
	case s.sqlPrepared[p.stmtName].Name != "":
		e.st.Analysis = s.sqlPrepared[p.stmtName].Analysis
	default:
		e.st.Analysis = domain.Analysis{Actions: []string{analyzer.Unknown}}
	}
	return e
}

// setStmt and setPortal change the maps and journal the change, so that it
// is undone when the messages are discarded (held) instead of forwarded.
func (s *session) setStmt(name string, v *prepared) {
	old, had := s.stmts[name]
	s.journal = append(s.journal, func() {
		if had {
			s.stmts[name] = old
		} else {
			delete(s.stmts, name)
		}
	})
	if v == nil {
		delete(s.stmts, name)
	} else {
		s.stmts[name] = v
	}
}

func (s *session) setPortal(name string, v *portal) {
	old, had := s.portals[name]
	s.journal = append(s.journal, func() {
		if had {
			s.portals[name] = old
		} else {
			delete(s.portals, name)
		}
	})
	if v == nil {
		delete(s.portals, name)
	} else {
		s.portals[name] = v
	}
}

func (s *session) undoJournal() {
	for i := len(s.journal) - 1; i >= 0; i-- {
		s.journal[i]()
	}
	s.journal = nil
}

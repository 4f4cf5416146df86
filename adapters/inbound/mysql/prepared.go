package mysql

import (
	"encoding/binary"
	"fmt"

	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// prepared is one prepared statement of a session, as the upstream
// confirmed it (COM_STMT_PREPARE_OK).
type prepared struct {
	text   string
	db     string // the current database when it was prepared: its names resolve there
	params int
	types  []byte         // the parameter types last bound (2 bytes each)
	long   map[int][]byte // COM_STMT_SEND_LONG_DATA values held until the next COM_STMT_EXECUTE
	// cuts: the held COM_STMT_SEND_LONG_DATA packets in the order the client
	// sent them (parameter, bytes of its value): the upstream receives them
	// as the client cut them, each within the client's max_allowed_packet.
	cuts []longCut
	held []*app.Reservation
	// cursor: the masking of the last execution's open cursor (maskrelay.go).
	cursor *cursorMask
}

// longCut is one COM_STMT_SEND_LONG_DATA packet: n bytes of parameter
// param's value, after the ones sent before it.
type longCut struct{ param, n int }

// clearLong drops the long data held for the next execution (MySQL clears
// it after every COM_STMT_EXECUTE and on COM_STMT_RESET).
func (st *prepared) clearLong() {
	for _, r := range st.held {
		r.Release()
	}
	st.long, st.cuts, st.held = nil, nil, nil
}

// prepare forwards a COM_STMT_PREPARE and records the statement the
// upstream prepared. Preparing runs nothing, so it is not decided; each
// COM_STMT_EXECUTE is.
func (s *session) prepare(p []byte, seq byte) error {
	if err := s.forward(p, seq); err != nil {
		return err
	}
	a, err := s.relay(respPrepare, s.cw)
	if err == nil && !a.failed {
		s.stmts[a.stmtID] = &prepared{text: string(p[1:]), db: s.database, params: a.params}
		s.lastStmt = a.stmtID
	}
	return err
}

// stmtID reads a command's statement id (MariaDB's 0xffffffff: the last
// one prepared).
func (s *session) stmtID(p []byte) (uint32, *prepared) {
	id := binary.LittleEndian.Uint32(p[1:])
	if id == 0xffffffff {
		id = s.lastStmt
	}
	return id, s.stmts[id]
}

// execute decides a COM_STMT_EXECUTE: the prepared text with the values it
// binds (and the long data sent for it) is the statement. When it may run,
// the held long data goes first, then the command.
func (s *session) execute(p []byte, seq byte) error {
	if len(p) < 10 {
		return wire.Errorf("COM_STMT_EXECUTE of %d bytes", len(p))
	}
	id, st := s.stmtID(p)
	if st == nil { // the upstream answers with its own ERR (unknown statement handler)
		return s.passOne(p, seq, respResult)
	}
	defer st.clearLong()
	s.closeCursor(st) // a new execution closes the cursor of the last one
	if s.txFailed {
		_, err := s.afterFailedTx("", seq)
		return err
	}
	params, types, err := decodeParams(p[10:], st.params, st.types, st.long)
	if err != nil {
		return err
	}
	set := s.rules()
	res, err := s.analyze(st.text, st.db)
	if err != nil {
		return err
	}
	stmt := app.Statement{Canonical: canonicalExecute(st.text, params), Render: func() string { return displayExecute(st.text, params, st.db) }}
	out := s.decideOn(st.db, func() app.Outcome { return s.decide(set, res, &stmt) })
	if !out.Forward {
		return s.deny(out, seq)
	}
	defer out.Ticket.Spend() // unless a proof gives it back first (query.go)
	st.types = types         // the server keeps the types of the executes it received
	if err := s.upstreamOpen(out.Ticket, seq); err != nil {
		return err
	}
	if err := s.forwardLong(id, st); err != nil {
		out.Ticket.GiveBack(domain.NotSent(err.Error()))
		return err
	}
	if err := s.forward(p, seq); err != nil {
		out.Ticket.GiveBack(domain.NotSent(err.Error()))
		return err
	}
	out.Ticket.Sent()
	if set.Masking != nil {
		s.startMask(set, stmt, true)
	}
	a, err := s.relay(respResult, s.cw)
	if err == nil {
		out.Ticket.GiveBack(proof(a, res))
	}
	s.endCursorMask(set, st)
	return err
}

// forwardLong sends statement id's held long data to the upstream, packet
// by packet as the client cut it (COM_STMT_SEND_LONG_DATA has no answer):
// joined into one packet, a value within 7 bytes of max_allowed_packet
// that the server takes from the client would exceed it (ERR 1153 and a
// lost connection; issue 31 point 3).
func (s *session) forwardLong(id uint32, st *prepared) error {
	off := map[int]int{}
	for _, c := range st.cuts {
		v := st.long[c.param][off[c.param]:][:c.n]
		off[c.param] += c.n
		pkt := append(make([]byte, 0, 7+len(v)), gm.COM_STMT_SEND_LONG_DATA)
		pkt = binary.LittleEndian.AppendUint32(pkt, id)
		pkt = binary.LittleEndian.AppendUint16(pkt, uint16(c.param))
		if _, err := wire.Write(s.uw, 0, append(pkt, v...)); err != nil {
			return err
		}
	}
	return nil
}

// decideOn runs decide with db as the database of the fingerprint (a
// prepared statement's names resolve where it was prepared).
func (s *session) decideOn(db string, decide func() app.Outcome) app.Outcome {
	cur := s.database
	s.database = db
	defer func() { s.database = cur }()
	return decide()
}

// longData holds a COM_STMT_SEND_LONG_DATA value (no answer is sent) until
// the statement's next COM_STMT_EXECUTE, which it becomes part of; its
// bytes count against the held-payload budget.
func (s *session) longData(p []byte) error {
	if len(p) < 7 {
		return wire.Errorf("COM_STMT_SEND_LONG_DATA of %d bytes", len(p))
	}
	_, st := s.stmtID(p)
	param := int(binary.LittleEndian.Uint16(p[5:]))
	if st == nil || param >= st.params {
		return s.forward(p, 0) // the upstream reports it at COM_STMT_EXECUTE
	}
	ctx, done := analyzerkit.WhileConnected(len(p), s.clientWatch())
	r, err := s.l.Held().Reserve(ctx, int64(len(p)))
	if done() {
		r.Release()
		return analyzerkit.ErrGoneUnread
	}
	if err != nil {
		return fmt.Errorf("held-payload budget: %w", err)
	}
	if st.long == nil {
		st.long = map[int][]byte{}
	}
	st.long[param] = append(st.long[param], p[7:]...)
	st.cuts = append(st.cuts, longCut{param, len(p) - 7})
	st.held = append(st.held, r)
	return nil
}

// closeStmt forwards a COM_STMT_CLOSE (no answer) and forgets the statement.
func (s *session) closeStmt(p []byte, seq byte) error {
	if len(p) < 5 {
		return wire.Errorf("COM_STMT_CLOSE of %d bytes", len(p))
	}
	id, st := s.stmtID(p)
	if st != nil {
		st.clearLong()
		s.closeCursor(st)
		delete(s.stmts, id)
	}
	return s.forward(p, seq)
}

// resetStmt drops the held long data and forwards a COM_STMT_RESET.
func (s *session) resetStmt(p []byte, seq byte) error {
	if len(p) < 5 {
		return wire.Errorf("COM_STMT_RESET of %d bytes", len(p))
	}
	if _, st := s.stmtID(p); st != nil {
		st.clearLong()
		s.closeCursor(st)
	}
	return s.passOne(p, seq, respOne)
}

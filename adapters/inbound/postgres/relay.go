package postgres

import (
	"encoding/binary"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// expKind is what an expectation waits for from the upstream.
type expKind uint8

const (
	expStartup  expKind = iota // authentication, ends with ReadyForQuery
	expQuery                   // a simple Query, ends with ReadyForQuery
	expSync                    // a Sync, answered by ReadyForQuery
	expFuncCall                // a FunctionCall, ends with ReadyForQuery
	expParse                   // ParseComplete
	expBind                    // BindComplete
	expDescribe                // RowDescription or NoData (after ParameterDescription for a statement)
	expExecute                 // CommandComplete, EmptyQueryResponse or PortalSuspended
	expClose                   // CloseComplete
	expInject                  // not from the upstream: our denial, sent when it reaches the head
	expSwallow                 // the upstream's error for our abort message: not shown to the client
	expMaskDesc                // our Describe of a masked Execute's portal: read, not shown (mask.go)
)

// syncish kinds end with ReadyForQuery.
func (k expKind) syncish() bool { return k <= expFuncCall }

// expect is one entry of the queue of answers the client is owed, in the
// order the upstream (or the Sidecar) gives them.
type expect struct {
	kind   expKind
	unit   *unit
	ticket *ticketState // expExecute of an approved statement
	prep   *prepared    // expDescribe of a statement: learns its parameter types
	msg    []byte       // expInject
	// mask is the masking of an expQuery's or expExecute's result (nil:
	// none); target is the Execute an expMaskDesc describes.
	mask   *resultMask
	target *expect
	// seq is the expectation's position (1-based) in the queue, set by push;
	// ok counts its successful answers (ParseComplete, BindComplete,
	// CloseComplete, CommandComplete), under mu. They confirm names changes.
	seq uint64
	ok  int
}

// unit is the answers up to one ReadyForQuery (a Query, or a Sync batch):
// the approvals claimed with spend_approval_on: accepted in it are settled
// when its ReadyForQuery arrives, before the client sees it.
type unit struct {
	tickets []*ticketState
	failed  bool       // the upstream sent an ErrorResponse within the unit
	err     *unitError // the first of them (spend.go)
}

// ticketState tracks one claimed approval: it is accepted when each of the
// need Executes it covers completed and the unit did not fail.
type ticketState struct {
	t          *app.Ticket
	need, done int
}

func (u *unit) settle() {
	if u == nil {
		return
	}
	for _, ts := range u.tickets {
		// Given back only with proof that nothing of it ran (spend.go).
		ts.t.GiveBack(proof(u, ts))
	}
	u.tickets = nil
}

// push appends expectations (before their messages go upstream) and sends
// any denial that is now at the head. It flushes what it sent.
func (s *session) push(es ...*expect) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range es {
		s.pushed++
		e.seq = s.pushed
	}
	s.fifo = append(s.fifo, es...)
	if s.drainInjections() {
		s.cw.Flush()
	}
}

func (s *session) head() *expect {
	if len(s.fifo) == 0 {
		return nil
	}
	return s.fifo[0]
}

func (s *session) pop() {
	if m := s.fifo[0].mask; m != nil {
		s.maskDone(m)
	}
	s.fifo[0] = nil
	s.fifo = s.fifo[1:]
	s.popped++
	s.drained.Broadcast()
}

// drainInjections sends the denials at the head of the queue (drops them
// while the upstream discards until Sync: the client already has an error).
func (s *session) drainInjections() (wrote bool) {
	for h := s.head(); h != nil && h.kind == expInject; h = s.head() {
		if !s.skipping {
			s.cw.Write(h.msg)
			wrote = true
		}
		s.pop()
	}
	return wrote
}

// waitDrained blocks until n expectations have been answered (or the relay
// ended, or the upstream skips until Sync after an error: what is left will
// not run) and returns the transaction status then.
func (s *session) waitDrained(n uint64) byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.popped < n && !s.relayDone && !s.skipping {
		s.drained.Wait()
	}
	return s.txStatus
}

// relay copies the upstream's messages to the client until the upstream
// connection ends, then closes the client connection.
func (s *session) relay() {
	defer func() {
		s.mu.Lock()
		s.cw.Flush()
		s.relayDone = true
		s.drained.Broadcast()
		s.mu.Unlock()
		s.client.Close()
		// The client connection is closed with the upstream: its wait ends.
		s.wait.Close()
	}()
	for {
		if s.ur.Buffered() == 0 {
			s.mu.Lock()
			err := s.cw.Flush()
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
		// The message is handled in the reader's buffer (no copy): nothing
		// keeps it past fromUpstream.
		typ, frame, used, err := peekFrame(s.ur)
		if err != nil {
			if !isClosed(err) {
				s.log.Warn("postgres upstream connection failed", "error", err)
			}
			return
		}
		if err := s.locked(func() error { return s.fromUpstream(typ, frame) }); err != nil {
			return
		}
		s.ur.Discard(used)
	}
}

// locked runs fn under mu, releasing it even if fn panics.
func (s *session) locked(fn func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fn()
}

// fromUpstream handles one upstream message under mu.
func (s *session) fromUpstream(typ byte, frame []byte) error {
	h := s.head()
	var m *resultMask
	if h != nil {
		m = h.mask
	}
	switch typ {
	case 'E':
		return s.upstreamError(h, frame)
	case 'Z':
		return s.readyForQuery(frame)
	case 'R':
		if b := body(frame); len(b) >= 4 && binary.BigEndian.Uint32(b) == 10 { // AuthenticationSASL
			s.saslStarted.Store(true)
			if !s.keepChannelBinding {
				frame = stripChannelBinding(frame)
			}
		}
	case 'K':
		s.registerCancelKey(frame)
	case 'S':
		s.parameterStatus(frame)
	case '1':
		s.expectDone(h, expParse)
	case '2':
		s.expectDone(h, expBind)
	case '3':
		s.expectDone(h, expClose)
	case 't':
		if h != nil && h.kind == expDescribe && h.prep != nil {
			var pd pgproto3.ParameterDescription
			if pd.Decode(body(frame)) == nil {
				h.prep.learned = pd.ParameterOIDs
			}
		}
	case 'T', 'n':
		if h != nil && h.kind == expMaskDesc {
			s.maskDescribed(h, typ, frame)
			s.pop()
			return nil
		}
		if h != nil && h.kind == expDescribe {
			s.pop()
		}
	case 'C', 'I', 's':
		if h != nil && typ == 'C' && (h.kind == expExecute || h.kind == expQuery) {
			h.ok++
		}
		if h != nil && typ == 'C' && h.kind == expQuery && lasting(frame) {
			for _, ts := range h.unit.tickets {
				ts.done++
			}
		}
		if h != nil && h.kind == expExecute {
			if h.ticket != nil {
				h.ticket.done++
			}
			s.pop()
		}
	}
	if s.muted && !shownWhileMuted(typ) {
		return nil
	}
	if m != nil {
		if frame = s.maskMessage(m, typ, frame); frame == nil {
			return nil
		}
	}
	if _, err := s.cw.Write(frame); err != nil {
		return err
	}
	s.drainInjections()
	return nil
}

// lasting reports whether a CommandComplete is of a statement that may
// leave an effect (every tag but transaction control and settings).
func lasting(frame []byte) bool {
	tag, _, _ := strings.Cut(string(body(frame)), "\x00")
	switch tag {
	case "BEGIN", "START TRANSACTION", "SAVEPOINT", "RELEASE", "ROLLBACK", "SET", "RESET", "SHOW":
		return false
	}
	return true
}

// expectDone pops the head when it is of kind k.
func (s *session) expectDone(h *expect, k expKind) {
	if h != nil && h.kind == k {
		h.ok++
		s.pop()
		return
	}
	s.log.Debug("postgres upstream answer out of step with the requests", "want", k)
}

// upstreamError handles an ErrorResponse. In the extended protocol the
// upstream then discards messages until Sync, so the pending expectations
// up to the next ReadyForQuery are dropped when it arrives.
func (s *session) upstreamError(h *expect, frame []byte) error {
	if h == nil {
		_, err := s.cw.Write(frame)
		return err
	}
	if h.unit != nil {
		if !h.unit.failed {
			e := readUnitError(frame)
			h.unit.err = &e
		}
		h.unit.failed = true
	}
	if h.kind == expSwallow { // the answer to our abort message
		s.pop()
		s.skipping = true
		s.drained.Broadcast()
		s.drainInjections()
		return nil
	}
	if !h.kind.syncish() {
		s.pop()
		s.skipping = true
		s.drained.Broadcast()
	}
	if s.muted { // the client already has the masking's error for this unit
		return nil
	}
	_, err := s.cw.Write(frame)
	s.drainInjections()
	return err
}

// readyForQuery ends a unit: expectations left before its Sync were skipped
// by the upstream; approvals are settled; the transaction status is kept.
func (s *session) readyForQuery(frame []byte) error {
	for h := s.head(); h != nil && !h.kind.syncish(); h = s.head() {
		if h.kind == expInject && !s.skipping {
			s.cw.Write(h.msg)
		}
		if h.unit != nil && h.kind == expExecute {
			h.unit.failed = h.unit.failed || s.skipping
		}
		s.pop()
	}
	if len(frame) >= 6 {
		s.txStatus = frame[5]
	}
	s.skipping, s.muted = false, false
	if h := s.head(); h != nil {
		h.unit.settle()
		if h.kind == expStartup {
			s.ready()
		}
		s.pop()
	}
	if _, err := s.cw.Write(frame); err != nil {
		return err
	}
	s.drainInjections()
	s.CloseIfIdleLocked()
	return nil
}

// registerCancelKey records a BackendKeyData so that CancelRequests for it
// reach this session's upstream.
func (s *session) registerCancelKey(frame []byte) {
	var k pgproto3.BackendKeyData
	if k.Decode(body(frame)) != nil {
		return
	}
	key := cancelKey(k.ProcessID, k.SecretKey)
	s.cancelKeys = append(s.cancelKeys, key)
	s.p.cancels.add(key, s)
}

// parameterStatus follows application_name, so that SET application_name
// can ask for return mode too, and the settings the analysis depends on.
func (s *session) parameterStatus(frame []byte) {
	var ps pgproto3.ParameterStatus
	if ps.Decode(body(frame)) != nil {
		return
	}
	if ps.Name == "application_name" {
		s.returnMode.Store(domain.WantsReturnMode(ps.Value))
	}
	s.followSetting(ps.Name, ps.Value)
}

// stripChannelBinding removes SCRAM mechanisms with channel binding (-PLUS)
// from an AuthenticationSASL frame: the client's TLS ends at the Sidecar, so
// it cannot bind to the upstream's channel.
func stripChannelBinding(frame []byte) []byte {
	var sasl pgproto3.AuthenticationSASL
	if sasl.Decode(body(frame)) != nil {
		return frame
	}
	kept := sasl.AuthMechanisms[:0]
	for _, m := range sasl.AuthMechanisms {
		if !strings.HasSuffix(m, "-PLUS") {
			kept = append(kept, m)
		}
	}
	if len(kept) == len(sasl.AuthMechanisms) {
		return frame
	}
	sasl.AuthMechanisms = kept
	return encode(&sasl)
}

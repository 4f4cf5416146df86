package mssql

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hoophq/sidecar/internal/tds"
)

// maxCarry bounds the bytes of one token the relay holds to read it (a
// RETURNVALUE with a large value; a row is walked instead, past
// maxRowHold): past it, the rest of that answer is copied unread, and what
// it would have changed (current database, transaction) the listener then
// asks the upstream (session.relearn).
const maxCarry = 4 << 20

// maxRowHold is the most of a ROW, NBCROW or ALTROW the relay holds: a
// longer one is measured by a tds.RowWalker as its packets pass, holding
// none of its values.
const maxRowHold = 64 << 10

// relayLoop is the session's relay: it copies every packet the upstream
// sends to the client as it arrives (results are never held whole: a
// large result streams with constant memory), and reads the token stream
// (tds.Scanner, with the features the login acknowledged) for what the
// session needs: ENVCHANGE (current database, transaction descriptors,
// packet size), ERROR and DONE (whether the request was accepted,
// spend_approval_on: accepted), DONE(ATTN), and the RETURNVALUE that
// carries a prepared handle. The end of a message (EOM) ends the answer to
// the forwarded request, unless an Attention is outstanding: then its
// DONE(ATTN) does. An answer that breaks MS-TDS (the scanner cannot frame
// it, or a token ends with the message) closes the connection
// (unreadableAnswer): an ENVCHANGE after it could not be seen.
func (s *session) relayLoop() {
	defer s.close()
	var (
		buf     []byte
		carry   []byte
		walk    *tds.RowWalker // a long row under way: its bytes are not held
		sc      = tds.Scanner{Features: s.features}
		framing = true
		retryAt int // a cut token is read again once carry reaches this size
		res     response
	)
	for {
		h, body, err := readPacket(s.ur, buf, 65535)
		if err != nil {
			var pe *protocolError
			switch {
			case errors.As(err, &pe):
				s.log.Warn("mssql upstream sent a malformed packet; connection closed", "error", err)
			case s.idleUpstreamEnd():
				s.log.Info("mssql upstream closed an idle connection; client connection closed", "error", err)
			case !isClosed(err):
				s.log.Info("mssql upstream connection ended", "error", err)
			}
			return
		}
		buf = body[:0]
		if h.Type != tds.PacketReply {
			s.log.Warn("mssql upstream sent a packet that is not a reply; connection closed", "type", h.Type)
			return
		}
		s.mu.Lock()
		discard := s.discard && s.state == stForwarded
		m := s.mask // nil unless the forwarded request's results are masked
		s.mu.Unlock()
		eom := h.Status&tds.StatusEOM != 0
		if m != nil {
			if !s.maskPacket(m, &sc, &carry, &retryAt, &res, h, body, eom) {
				return
			}
		} else if framing {
			fresh := body
			if walk != nil {
				n, done := walk.Feed(body)
				fresh = body[n:]
				if done {
					walk = nil
				} else if eom {
					s.unreadableAnswer(h, body, len(body), errors.New("the message ended inside a row"), discard)
					return
				}
			}
			if walk == nil {
				carry = append(carry, fresh...)
			}
			// At the end of a message every byte must have been read: a
			// token does not continue in the next message.
			if walk == nil && (len(carry) >= retryAt || eom) {
				n, err := s.scan(&sc, carry, &res, discard, nil)
				if err == nil && len(carry)-n > maxRowHold && isRow(carry[n]) {
					w, used, done, werr := sc.WalkRow(carry[n:])
					switch {
					case werr != nil && !errors.Is(werr, tds.ErrShort):
						err = werr
					case werr == nil && !done:
						walk, n = w, len(carry) // the row's bytes so far: walked, not held
					case werr == nil:
						n += used
					}
				}
				switch {
				case err != nil || !eom:
				case walk != nil:
					err = errors.New("the message ended inside a row")
				case n < len(carry):
					err = fmt.Errorf("the message ended inside a token 0x%02X (%d bytes unread)", carry[n], len(carry)-n)
				}
				if err != nil {
					s.unreadableAnswer(h, body, len(carry)-n, err, discard)
					return
				}
				carry = carry[:copy(carry, carry[n:])]
				if len(carry) > maxCarry {
					framing, carry, res.lost = false, carry[:0], true
					s.log.Warn("mssql relay holds no more of one upstream token; the rest of the answer is copied unread", "bytes", maxCarry)
				}
				// A token longer than a few packets (a large value) is
				// read again only once its bytes doubled: reading it
				// again at every packet would cost its length squared.
				retryAt = 0
				if len(carry) > 64<<10 {
					retryAt = 2 * len(carry)
				}
			}
		}
		complete, stray := false, false
		var onEnd func(response)
		if eom {
			carry, walk, framing, retryAt = carry[:0], nil, true, 0
			sc.Reset()
			s.mu.Lock()
			switch {
			case s.state == stForwarded && s.attnPending == 0:
				complete, onEnd = true, s.onEnd
				if m != nil {
					res.withheld = m.withheld
				}
				s.state, s.discard, s.wantHandle, s.onEnd, s.mask = stBusy, false, false, nil, nil
			case s.state != stForwarded: // an answer to no request of the decider's (a late DONE(ATTN))
				stray = true
			}
			s.mu.Unlock()
		}
		if onEnd != nil {
			// Before the client sees the end of the answer: a resend it
			// sends at once finds the approval settled.
			onEnd(res)
		}
		if !discard && m == nil {
			if err := s.copyPacket(h, body, eom); err != nil {
				return
			}
		}
		switch {
		case complete:
			select {
			case s.respDone <- res:
			case <-s.stop:
				return
			}
			res = response{}
		case stray:
			res = response{}
		}
	}
}

// idleUpstreamEnd reports whether the upstream, not the listener, ended
// the connection while no request was in flight (KILL, a restart, a
// gateway's idle timeout). The relay reads the upstream at all times, so
// it is the idle watch: its return closes the client connection too
// (relayLoop's close), after every packet the upstream sent before, and
// the client's driver sees the close before its next request, as it
// would directly (issue 31 point 4).
func (s *session) idleUpstreamEnd() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.closed && s.state == stIdle
}

// unreadableAnswer ends the session on an upstream answer the relay cannot
// frame: the whole tokens of this packet before the unread bytes (the last
// unread of body's bytes) reach the client, then ERROR 50000 state 127
// (class 20) and DONE, and the connection closes. Nothing of the
// unreadable token is held past this packet, and no ENVCHANGE after it can
// be missed: the session ends before anything else is decided on it.
func (s *session) unreadableAnswer(h tds.Header, body []byte, unread int, err error, discard bool) {
	s.log.Warn("mssql upstream sent an answer the listener cannot read; connection closed", "error", err)
	if discard {
		return
	}
	s.client.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if keep := len(body) - min(unread, len(body)); keep > 0 {
		h.Status &^= tds.StatusEOM
		h.Length = uint16(tds.HeaderLen + keep)
		if s.copyPacket(h, body[:keep], true) != nil {
			return
		}
	}
	s.writeClient(errorReply(errUnreadableAnswer.with("hoop sidecar: the server's answer cannot be read ("+err.Error()+"); the connection is closed"), tds.TokenDone, false))
}

// isRow reports whether a token of type t is a row the relay may walk.
func isRow(t byte) bool {
	return t == tds.TokenRow || t == tds.TokenNBCRow || t == tds.TokenAltRow
}

// copyPacket writes one upstream packet to the client, flushing at the end
// of a message or when no more upstream bytes are buffered.
func (s *session) copyPacket(h tds.Header, body []byte, eom bool) error {
	s.cwMu.Lock()
	defer s.cwMu.Unlock()
	s.cw.Write(h.Append(s.hdr[:0]))
	if _, err := s.cw.Write(body); err != nil {
		return err
	}
	if eom || s.ur.Buffered() == 0 {
		return s.cw.Flush()
	}
	return nil
}

// scan reads the whole tokens at the start of b into res and the session;
// it returns how many bytes it used; m, when set, rewrites each token for
// the client (a masked answer). A token cut by the packet's end waits
// for the next packet (tds.ErrShort); any other error means the stream
// cannot be framed.
func (s *session) scan(sc *tds.Scanner, b []byte, res *response, discard bool, m *masker) (int, error) {
	used := 0
	for used < len(b) {
		t, err := sc.Next(b[used:])
		if errors.Is(err, tds.ErrShort) {
			return used, nil
		}
		if err != nil {
			return used, err
		}
		s.token(t, res, discard)
		if m != nil {
			m.token(t, sc)
		}
		used += len(t.Raw)
	}
	return used, nil
}

// token applies one token of an upstream answer.
func (s *session) token(t tds.Token, res *response, discard bool) {
	switch t.Type {
	case tds.TokenEnvChange:
		e, err := tds.DecodeEnvChange(t.Body)
		if err != nil {
			return
		}
		s.envChange(e)
		if discard {
			res.env = append(res.env, t.Raw...)
		}
	case tds.TokenError:
		if len(t.Body) > 5 && t.Body[5] >= 11 {
			res.failed = true
		}
		e, err := tds.DecodeErrorInfo(t.Body)
		if err != nil || e.ProcName != "" {
			res.inProc = true // or unreadable: nothing tells where it was raised
		}
		if err == nil && res.errNumber == 0 && len(t.Body) > 5 && t.Body[5] >= 11 {
			res.errNumber = e.Number
		}
	case tds.TokenInfo:
		if discard {
			if e, err := tds.DecodeErrorInfo(t.Body); err == nil && e.State == relearnState {
				res.state = e.Message
			}
		}
	case tds.TokenDone, tds.TokenDoneProc, tds.TokenDoneInProc:
		st := binary.LittleEndian.Uint16(t.Body)
		if st&(tds.DoneError|tds.DoneSrvError) != 0 {
			res.failed = true
		}
		if st&(tds.DoneError|tds.DoneSrvError|tds.DoneAttn) == 0 && t.Type != tds.TokenDoneProc {
			res.ran = true
		}
		if st&tds.DoneAttn != 0 {
			res.attn = true
			s.mu.Lock()
			if s.attnPending > 0 {
				s.attnPending--
			}
			s.mu.Unlock()
		}
	case tds.TokenReturnValue:
		s.mu.Lock()
		want := s.wantHandle
		s.mu.Unlock()
		if !want || res.handle != nil {
			return
		}
		// The handle is the call's first parameter (@handle OUTPUT, rpc.go
		// handleOut): ordinal 0, not another OUTPUT value.
		if v, err := tds.DecodeReturnValue(t.Body); err == nil && v.Ordinal == 0 && len(v.Value) == 4 &&
			(v.Type.Type == tds.TypeIntN || v.Type.Type == tds.TypeInt4) {
			h := int32(binary.LittleEndian.Uint32(v.Value))
			res.handle = &h
		}
	}
}

// envChange records what an ENVCHANGE changes in the session (MS-TDS
// 2.2.7.9): the current database, the transaction descriptor, the packet
// size.
func (s *session) envChange(e *tds.EnvChange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Type {
	case tds.EnvDatabase:
		s.database = e.NewString()
	case tds.EnvBeginTran, tds.EnvEnlistDTC:
		if d, ok := e.Descriptor(); ok {
			s.tx, s.txUnknown = d, false
		}
	case tds.EnvCommitTran, tds.EnvRollbackTran, tds.EnvDefectTran, tds.EnvTranEnded:
		s.tx, s.txUnknown = 0, false
	case tds.EnvPacketSize:
		if n, err := strconv.Atoi(e.NewString()); err == nil && n >= tds.MinPacketSize && n <= tds.MaxPacketSize {
			s.packetSize.Store(int32(n))
		}
	}
}

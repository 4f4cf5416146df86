package mssql

import (
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/hoophq/sidecar/internal/tds"
)

// maxCarry bounds the bytes of one token the relay holds to read it (a
// ROW with large values): past it, the rest of that answer is copied
// unread, and what it would have changed (current database, transaction)
// the listener then asks the upstream (session.relearn).
const maxCarry = 4 << 20

// relayLoop is the session's relay: it copies every packet the upstream
// sends to the client as it arrives (results are never held whole: a
// large result streams with constant memory), and reads the token stream
// (tds.Scanner) for what the session needs: ENVCHANGE (current database,
// transaction descriptors, packet size), ERROR and DONE (whether the
// request was accepted, spend_approval_on: accepted), DONE(ATTN), and the
// RETURNVALUE that carries a prepared handle. The end of a message (EOM)
// ends the answer to the forwarded request, unless an Attention is
// outstanding: then its DONE(ATTN) does.
func (s *session) relayLoop() {
	defer s.close()
	var (
		buf     []byte
		carry   []byte
		sc      tds.Scanner
		framing = true
		retryAt int // a cut token is read again once carry reaches this size
		res     response
	)
	for {
		h, body, err := readPacket(s.ur, buf, 65535)
		if err != nil {
			var pe *protocolError
			if errors.As(err, &pe) {
				s.log.Warn("mssql upstream sent a malformed packet; connection closed", "error", err)
			} else if !isClosed(err) {
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
		s.mu.Unlock()
		eom := h.Status&tds.StatusEOM != 0
		if framing {
			carry = append(carry, body...)
			if len(carry) >= retryAt {
				n, err := s.scan(&sc, carry, &res, discard)
				carry = carry[:copy(carry, carry[n:])]
				if err != nil || len(carry) > maxCarry {
					framing, carry, res.lost = false, carry[:0], true
					s.log.Warn("mssql relay cannot read the rest of an upstream answer; it is copied unread", "error", err)
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
			if framing && len(carry) > 0 { // the message ended: read what waited for more bytes
				n, err := s.scan(&sc, carry, &res, discard)
				if err != nil || n < len(carry) {
					res.lost = true
				}
			}
			carry, sc, framing, retryAt = carry[:0], tds.Scanner{}, true, 0
			s.mu.Lock()
			switch {
			case s.state == stForwarded && s.attnPending == 0:
				complete, onEnd = true, s.onEnd
				s.state, s.discard, s.wantHandle, s.onEnd = stBusy, false, false, nil
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
		if !discard {
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
// it returns how many bytes it used. A token cut by the packet's end waits
// for the next packet (tds.ErrShort); any other error means the stream
// cannot be framed.
func (s *session) scan(sc *tds.Scanner, b []byte, res *response, discard bool) (int, error) {
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

package mssql

import (
	"errors"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tds"
)

// readLoop is the session's reader: it reads the client's messages for as
// long as the connection lasts, so that an Attention (MS-TDS 2.2.1.7) is
// seen while a request waits for approval or runs upstream, and a hang-up
// while a statement waits for approval ends the wait (the reader is the
// hang-up watch: internal/hangup's peek is for listeners whose session
// reads the client only between statements).
//
// Requests go to the decider one at a time: a request that arrives before
// the previous one was answered (a client without MARS may not send one)
// waits here until it was.
func (s *session) readLoop() {
	var buf []byte
	for {
		r, b, err := s.readRequest(buf)
		buf = b
		if err != nil {
			var pe *protocolError
			if errors.As(err, &pe) {
				s.protocolFailure(err)
				return
			}
			waiting := s.wait.Interrupt(app.ErrClientGone)
			if !waiting && !isClosed(err) {
				s.log.Info("mssql client connection ended", "error", err)
			}
			s.close() // a wait for approval ends with app.ErrClientGone: nothing of it is forwarded
			return
		}
		if r.msg.Type == tds.PacketAttention {
			r.held.Release()
			s.attention()
			continue
		}
		if r.msg.Ignore { // a request the client abandoned part-way: nothing to run or answer
			r.held.Release()
			continue
		}
		s.mu.Lock()
		for s.state != stIdle && !s.closed {
			s.cond.Wait()
		}
		if s.closed {
			s.mu.Unlock()
			r.held.Release()
			return
		}
		s.state = stBusy
		s.mu.Unlock()
		select {
		case s.reqs <- r:
		case <-s.stop:
			r.held.Release()
			return
		}
	}
}

// attention handles the client's Attention by the current request's state:
// none (answered DONE(ATTN) at once), decided by the listener (the wait for
// approval ends; DONE(ATTN) when the request ends, nothing forwarded), or
// forwarded (the Attention goes to the upstream, whose DONE(ATTN) the relay
// passes back).
func (s *session) attention() {
	s.mu.Lock()
	state := s.state
	if state == stForwarded && s.discard {
		// The listener's own request (a rollback, a reset, relearn) is not
		// the client's to cancel: it must run, and its answer is not
		// relayed, so the DONE(ATTN) would never reach the client. The
		// listener answers DONE(ATTN) when the client's request ends.
		state = stBusy
	}
	switch state {
	case stIdle:
		s.mu.Unlock()
		s.writeClient(attnReply())
	case stBusy:
		s.attnCancel = true
		s.wait.Interrupt(app.ErrStatementCanceled)
		s.mu.Unlock()
	case stForwarded:
		s.attnPending++
		s.mu.Unlock()
		s.uwMu.Lock()
		s.up.Write(tds.AppendAttention(nil, 0))
		s.uwMu.Unlock()
	default:
		s.mu.Unlock()
	}
}

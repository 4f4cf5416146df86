package grpclistener

import (
	"context"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// clientFrame handles one frame from the client (under the session's
// lock). An error is a connection error: GOAWAY goes out and the session
// ends.
func (s *session) clientFrame(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.HeadersFrame:
		s.clientHeaders(s.c.blk)
	case *http2.DataFrame:
		s.clientData(f)
	case *http2.RSTStreamFrame:
		if st := s.byC[f.StreamID]; st != nil {
			st.clientCancel = true
			if st.uid != 0 && !st.upClosed && s.upErr == nil {
				_ = s.u.fr.WriteRSTStream(st.uid, f.ErrCode)
			}
			st.upClosed = true
			if st.ticket != nil && !st.settled {
				st.settled = true
				go st.ticket.Spend() // the call may have run: the client cancelled it
			}
			s.forget(st)
		}
	case *http2.SettingsFrame:
		return s.peerSettings(s.c, f)
	case *http2.PingFrame:
		if !f.IsAck() {
			_ = s.c.fr.WritePing(true, f.Data)
		}
	case *http2.WindowUpdateFrame:
		return s.windowUpdate(s.c, f)
	case *http2.GoAwayFrame:
		// The client opens no more calls; the ones running go on.
	case *http2.PushPromiseFrame:
		return http2.ConnectionError(http2.ErrCodeProtocol)
	}
	return nil
}

// clientHeaders starts a call: it checks the method, then decides it at
// once when no approval rule covers it (the gate never waits for such a
// call), or starts reading its first message for the gate.
func (s *session) clientHeaders(f *headerBlock) {
	id := f.id
	if st := s.byC[id]; st != nil { // trailers from the client end its side
		if st.phase == phaseOpen {
			s.sendUp(st, item{hdr: forwardFields(nil, f.fields, s.upName, 0), end: true})
		}
		st.cEnd = true
		s.collected(st)
		return
	}
	if id%2 == 0 || id <= s.lastC {
		_ = s.c.fr.WriteRSTStream(id, http2.ErrCodeStreamClosed)
		return
	}
	s.lastC = id
	if s.goAway {
		_ = s.c.fr.WriteRSTStream(id, http2.ErrCodeRefusedStream)
		return
	}
	st := &stream{cid: id, fields: f.fields, start: time.Now(), cEnd: f.ended, cWin: s.c.initWin}
	s.byC[id] = st
	if f.truncated {
		s.h.log.Info("call refused: metadata over limits.header_bytes", "client", s.remote)
		s.answer(st, codes.Internal, "grpc listener: header list size exceeded limit (limits.header_bytes)", nil)
		return
	}
	method := f.fields.first(":path")
	if !wellFormed(method) {
		s.h.log.Warn("call refused: malformed method name", "method", method, "client", s.remote)
		s.answer(st, codes.Unimplemented, "grpc listener: malformed method name \""+method+"\": want /package.Service/Method", nil)
		return
	}
	if ct := st.fields.first("content-type"); !strings.HasPrefix(ct, "application/grpc") {
		s.answer(st, codes.Unimplemented, "grpc listener: content-type \""+ct+"\" is not gRPC", nil)
		return
	}
	if v := st.fields.first("grpc-timeout"); v != "" {
		st.timeout, _ = parseTimeout(v)
	}
	ls := s.h.l.Settings()
	if ls != s.upFor && s.upErr == nil {
		if key, _ := upstreamOf(ls); key == s.upKey {
			s.upFor = ls // settings the upstream connection serves
		}
	}
	if ls != s.upFor && s.upErr == nil {
		// A reload moved the upstream: this connection's calls finish on
		// the old one; the client sends this call again on a new one.
		_ = s.c.fr.WriteRSTStream(id, http2.ErrCodeRefusedStream)
		s.forget(st)
		s.goAwayClient()
		return
	}
	a := s.analysis(method)
	st.eval = app.Evaluate(ls, a)
	if st.eval.Verdict == domain.VerdictApproval {
		st.phase, st.held = phaseCollect, true
		st.fields = slices.Clone(st.fields) // the gate reads them after f is read again
		s.collected(st)
		return
	}
	// No approval rule holds the call: the gate needs no fingerprint, and
	// renders the call only for an audit sink that keeps allows.
	stmt := app.Statement{
		IdentityValues: app.IdentityValues(st.fields.Get, ls.IdentityKeys),
		Render:         func() string { return (&request{method: method}).display() },
		Analysis:       a,
		ReturnMode:     app.WantsReturnModeHeader(st.fields.Get),
		Client:         s.remote,
		Evaluation:     &st.eval,
	}
	out := s.h.l.CheckWith(context.Background(), ls, stmt)
	if !out.Forward {
		s.deny(st, out.Denial)
	} else {
		s.open(st, nil)
	}
	st.fields = nil // f's, read again next
}

// clientData relays, holds or drops one DATA frame from the client.
func (s *session) clientData(f *http2.DataFrame) {
	data := f.Data()
	n := int64(f.Length)
	s.creditConn(s.c, n)
	st := s.byC[f.StreamID]
	if st == nil || st.phase == phaseDone || st.cEnd {
		return // a call that ended: dropped
	}
	if pad := n - int64(len(data)); pad > 0 {
		s.credit(s.c, st, pad)
	}
	st.cEnd = f.StreamEnded()
	switch st.phase {
	case phaseCollect:
		// Given back at once: the whole first message must be able to
		// arrive before anything goes upstream.
		st.first = append(st.first, data...)
		s.credit(s.c, st, int64(len(data)))
		s.collected(st)
	case phaseGate:
		st.toUp = append(st.toUp, item{data: append([]byte(nil), data...), end: st.cEnd})
	case phaseOpen:
		if l, over := st.scan.feed(data, MaxMessageBytes); over {
			s.tooLarge(st, l)
			return
		}
		s.sendUp(st, item{data: data, end: st.cEnd})
	}
}

// tooLarge ends a call whose client sent a message over MaxMessageBytes.
func (s *session) tooLarge(st *stream, l uint32) {
	s.answer(st, codes.ResourceExhausted, "grpc: received message larger than max ("+itoa64(int64(l))+" vs. "+itoa64(MaxMessageBytes)+")", nil)
}

// collected checks a call in phaseCollect: a first message over
// MaxHeldMessage ends it; a whole first message, or a client that ended
// its side, hands it to the gate.
func (s *session) collected(st *stream) {
	if st.phase != phaseCollect {
		return
	}
	wire, declared, whole := firstMessage(st.first)
	switch {
	case len(st.first) >= prefixLen && declared > MaxHeldMessage:
		s.answer(st, codes.ResourceExhausted, tooLargeHeld(int64(declared)), nil)
	case whole:
		st.phase = phaseGate
		st.precredited = int64(len(st.first))
		if len(st.first) > wire { // the start of later messages waits with the call
			st.toUp = append(st.toUp, item{data: st.first[wire:], end: st.cEnd})
			st.first = st.first[:wire]
		}
		s.startGate(st)
	case st.cEnd && len(st.first) == 0:
		st.phase = phaseGate
		s.startGate(st)
	case st.cEnd:
		s.answer(st, codes.Internal, "grpc listener: the client ended the call inside a message", nil)
	}
}

// open relays a call upstream: its HEADERS (with the time a held call has
// left), then held (the first message the gate read) and what waited with
// it. It ends the call with
// UNAVAILABLE when there is no upstream connection.
func (s *session) open(st *stream, held []byte) {
	if s.upErr != nil || s.u == nil || s.upDraining {
		msg := "grpc listener: no upstream connection"
		if s.upErr != nil {
			msg = "grpc listener: " + s.upErr.Error()
		}
		s.answer(st, codes.Unavailable, msg, nil)
		s.goAwayClient()
		return
	}
	if uint32(len(s.byU)) >= s.u.maxStreams {
		// Over the upstream's SETTINGS_MAX_CONCURRENT_STREAMS (which the
		// client was told, in a SETTINGS that may have crossed this call):
		// refused unprocessed, so the client sends it again.
		_ = s.c.fr.WriteRSTStream(st.cid, http2.ErrCodeRefusedStream)
		st.cEnd = true
		s.forget(st)
		return
	}
	var left time.Duration // what a held call's deadline has left
	if st.timeout > 0 && st.held {
		if left = st.timeout - time.Since(st.start); left <= 0 {
			s.answer(st, codes.DeadlineExceeded, "grpc listener: the deadline passed while the call was held", nil)
			return
		}
	}
	st.uid, s.nextU = s.nextU, s.nextU+2
	s.byU[st.uid] = st
	st.upWin = s.u.initWin
	waiting := st.toUp
	st.toUp = nil
	st.phase = phaseOpen
	end := st.cEnd && held == nil && len(waiting) == 0
	s.scratch = forwardFields(s.scratch, st.fields, s.upName, left)
	s.sendUp(st, item{hdr: s.scratch, end: end})
	if held != nil {
		st.scan.feed(held, MaxMessageBytes)
		s.sendUp(st, item{data: held, end: st.cEnd && len(waiting) == 0})
	}
	for i, it := range waiting {
		if l, over := st.scan.feed(it.data, MaxMessageBytes); over {
			s.tooLarge(st, l)
			return
		}
		it.end = st.cEnd && i == len(waiting)-1
		s.sendUp(st, it)
	}
}

// deny ends the call with the denial d (denial.go).
func (s *session) deny(st *stream, d *domain.Denial) {
	if d == nil {
		d = &domain.Denial{Kind: domain.DeniedByPolicy, Message: "statement denied"}
	}
	s.h.log.Info("call denied", "method", st.fields.first(":path"), "denied", d.DeniedValue(), "rule", d.Rule,
		"approval_id", d.ApprovalID, "status", string(d.Status), "client", s.remote)
	s.answer(st, denialStatus(d).Code(), d.Message, denialFields(d))
}

// streamError resets the stream a malformed frame from side d belonged to.
func (s *session) streamError(d *side, se http2.StreamError) {
	_ = d.fr.WriteRSTStream(se.StreamID, se.Code)
	if d == s.c {
		if st := s.byC[se.StreamID]; st != nil {
			st.cEnd = true
			s.finish(st)
		}
		return
	}
	if st := s.byU[se.StreamID]; st != nil {
		st.upClosed = true
		s.answer(st, codes.Internal, "grpc listener: the upstream sent a malformed frame: "+se.Error(), nil)
	}
}

// peerSettings applies SETTINGS from side d and acknowledges them.
func (s *session) peerSettings(d *side, f *http2.SettingsFrame) error {
	if f.IsAck() {
		return nil
	}
	streams := d.maxStreams
	delta, err := d.applySettings(f)
	if err != nil {
		return err
	}
	_ = d.fr.WriteSettingsAck()
	if d == s.u && d.maxStreams != streams {
		// The client may open as many calls as the upstream takes.
		_ = s.c.fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: min(d.maxStreams, maxStreams)})
	}
	if delta != 0 {
		for _, st := range s.byC {
			if d == s.c {
				st.cWin += delta
			} else if st.uid != 0 {
				st.upWin += delta
			}
		}
		s.pumpAll(d)
	}
	return nil
}

// windowUpdate opens a send window towards side d.
func (s *session) windowUpdate(d *side, f *http2.WindowUpdateFrame) error {
	inc := int64(f.Increment)
	if f.StreamID == 0 {
		if d.sendConn += inc; d.sendConn > 1<<31-1 {
			return http2.ConnectionError(http2.ErrCodeFlowControl)
		}
		s.pumpAll(d)
		return nil
	}
	var st *stream
	if d == s.c {
		if st = s.byC[f.StreamID]; st != nil {
			st.cWin += inc
			s.pumpC(st)
		}
	} else if st = s.byU[f.StreamID]; st != nil {
		st.upWin += inc
		s.pumpUp(st)
	}
	return nil
}

// pumpAll writes what the windows now allow of every stream's queue
// towards d.
func (s *session) pumpAll(d *side) {
	for _, st := range s.byC {
		if d == s.c && len(st.toC) > 0 {
			s.pumpC(st)
		} else if d == s.u && st.phase == phaseOpen && len(st.toUp) > 0 {
			s.pumpUp(st)
		}
	}
}

// analysis returns analysis(method), from the session's cache of the
// methods its client called (at most maxAnalyses): the slices are shared,
// which the gate allows (domain.Analysis is not modified).
func (s *session) analysis(method string) domain.Analysis {
	if a, ok := s.analyses[method]; ok {
		return a
	}
	a := analysis(method)
	if s.analyses == nil {
		s.analyses = map[string]domain.Analysis{}
	}
	if len(s.analyses) < maxAnalyses {
		s.analyses[method] = a
	}
	return a
}

// maxAnalyses caps a session's cache of method analyses.
const maxAnalyses = 256

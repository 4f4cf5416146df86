package grpclistener

import (
	"context"
	"strconv"
	"time"

	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"

	"golang.org/x/net/http2"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// phase is where a call is in the relay.
type phase uint8

const (
	phaseCollect phase = iota // an approval rule covers it: its first message is being read
	phaseGate                 // the gate decides (handler.go); later frames wait
	phaseOpen                 // relayed upstream
	phaseDone                 // answered; frames that still come are dropped
)

// item is a frame waiting for its peer's flow-control window: a HEADERS
// block (hdr set) or DATA.
type item struct {
	hdr  fields
	data []byte
	end  bool
}

// stream is one call: its client stream id, its upstream stream id once it
// is relayed, and what is queued each way. Guarded by the session's lock.
type stream struct {
	cid, uid uint32
	phase    phase
	held     bool      // an approval rule covers the call: the gate decided it on its own goroutine
	fields   fields    // the request HEADERS: a copy of its own for a held call, else the side's headerBlock while it is handled
	start    time.Time // when they arrived
	timeout  time.Duration
	eval     domain.Evaluation // the rules' verdict on the method (in the stream: one allocation less per call)

	cEnd     bool // the client ended its side (END_STREAM received)
	upClosed bool // the upstream ended its side (END_STREAM or RST_STREAM received)
	respHdrs bool // response HEADERS went to the client
	respData bool // the upstream sent response data
	status   string
	message  string

	toUp, toC    []item
	upWin, cWin  int64 // send windows of the stream towards upstream and client
	ackC, ackU   int64 // received bytes not yet given back with WINDOW_UPDATE
	scan         msgScan
	first        []byte // phaseCollect: what the client sent so far
	precredited  int64  // bytes of the call given back to the client before they went upstream
	cancel       context.CancelFunc
	ticket       *app.Ticket
	settling     bool // the ticket is being settled; the final frame waits
	settled      bool
	clientCancel bool
}

// gone tells a call that its client left: a wait ends, an approval in
// flight is spent.
func (st *stream) gone() {
	if st.cancel != nil {
		st.cancel()
	}
	if st.ticket != nil && !st.settled {
		st.settled = true
		go st.ticket.Spend()
	}
	st.phase = phaseDone
}

// sendUp queues it towards the upstream and writes what the windows allow.
func (s *session) sendUp(st *stream, it item) {
	if len(st.toUp) == 0 {
		if it.hdr != nil {
			s.u.writeHeaders(st.uid, it.hdr, it.end)
			return
		}
		n := s.writable(s.u, st.upWin, len(it.data))
		if n == len(it.data) {
			s.writeData(s.u, st, it.data, it.end)
			return
		}
		s.writeData(s.u, st, it.data[:n], false)
		it.data = it.data[n:]
	}
	if it.hdr != nil {
		it.hdr = append(fields(nil), it.hdr...) // it.hdr may be the session's scratch
	} else {
		it.data = append([]byte(nil), it.data...)
	}
	st.toUp = append(st.toUp, it)
}

// sendC queues it towards the client and writes what the windows allow.
func (s *session) sendC(st *stream, it item) {
	if len(st.toC) == 0 && it.hdr != nil && (!it.end || st.ticket == nil) {
		s.c.writeHeaders(st.cid, it.hdr, it.end)
		st.respHdrs = true
		if it.end {
			s.finish(st)
		}
		return
	}
	if len(st.toC) == 0 && it.hdr == nil && !it.end {
		n := s.writable(s.c, st.cWin, len(it.data))
		s.writeData(s.c, st, it.data[:n], false)
		if it.data = it.data[n:]; len(it.data) == 0 {
			return
		}
	}
	if it.data != nil {
		it.data = append([]byte(nil), it.data...)
	} else {
		it.hdr = append(fields(nil), it.hdr...) // it.hdr may be a side's headerBlock
	}
	st.toC = append(st.toC, it)
	s.pumpC(st)
}

// writable is how many of n bytes the connection window of d and the
// stream's window win allow now.
func (s *session) writable(d *side, win int64, n int) int {
	return int(max(0, min(int64(n), d.sendConn, win)))
}

// writeData writes b as DATA frames of at most frameSize bytes to d and
// gives the bytes back to the side they came from.
func (s *session) writeData(d *side, st *stream, b []byte, end bool) {
	if len(b) == 0 && !end {
		return
	}
	id := s.idOn(d, st)
	for rest := b; ; {
		chunk := rest[:min(len(rest), frameSize)]
		rest = rest[len(chunk):]
		_ = d.fr.WriteData(id, end && len(rest) == 0, chunk)
		if len(rest) == 0 {
			break
		}
	}
	n := int64(len(b))
	d.sendConn -= n
	if d == s.u {
		st.upWin -= n
		given := min(n, st.precredited)
		st.precredited -= given
		s.credit(s.c, st, n-given)
	} else {
		st.cWin -= n
		s.credit(s.u, st, n)
	}
}

func (s *session) idOn(d *side, st *stream) uint32 {
	if d == s.u {
		return st.uid
	}
	return st.cid
}

// creditConn gives n bytes received from side from back to its
// connection window (WINDOW_UPDATE on stream 0) once a quarter of the
// window is due. Connection windows are given back as frames are read, as
// gRPC's and Go's HTTP/2 servers do, so a call that ends with bytes still
// queued never shrinks its connection's window; each stream's window is
// given back only as its bytes are written on (credit), which bounds what
// the relay holds per call.
func (s *session) creditConn(from *side, n int64) {
	if n == 0 || from == nil {
		return
	}
	from.unackedConn += n
	if from.unackedConn >= connWindow/4 {
		_ = from.fr.WriteWindowUpdate(0, uint32(from.unackedConn))
		from.unackedConn = 0
	}
}

// credit gives n bytes received from side from on stream st back to the
// stream's window, once a quarter of a window is due and while the peer
// may still send on it.
func (s *session) credit(from *side, st *stream, n int64) {
	if n <= 0 || from == nil {
		return
	}
	ack, ended, id := &st.ackC, st.cEnd || st.phase == phaseDone, st.cid
	if from == s.u {
		ack, ended, id = &st.ackU, st.upClosed || st.phase == phaseDone, st.uid
	}
	if ended {
		return
	}
	*ack += n
	if *ack >= streamWindow/4 {
		_ = from.fr.WriteWindowUpdate(id, uint32(*ack))
		*ack = 0
	}
}

// pumpUp writes what the windows allow of the frames queued upstream.
func (s *session) pumpUp(st *stream) {
	for len(st.toUp) > 0 {
		if !s.writeItem(s.u, st, st.uid, st.upWin, &st.toUp[0]) {
			return
		}
		st.toUp = st.toUp[1:]
	}
}

// writeItem writes the queued frame it on side d's stream id, as much of
// its data as the windows (win: the stream's send window) allow, and
// reports whether all of it went (else what is left stays in it).
func (s *session) writeItem(d *side, st *stream, id uint32, win int64, it *item) bool {
	if it.hdr != nil {
		d.writeHeaders(id, it.hdr, it.end)
		return true
	}
	n := s.writable(d, win, len(it.data))
	if n < len(it.data) {
		if n > 0 {
			s.writeData(d, st, it.data[:n], false)
			it.data = it.data[n:]
		}
		return false
	}
	s.writeData(d, st, it.data, it.end)
	return true
}

// pumpC writes what the windows allow of the frames queued for the client.
// The frame that ends the call waits while its approval is settled
// (handler.go: settle), so that the client learns the outcome only once
// the Control Plane has it.
func (s *session) pumpC(st *stream) {
	for len(st.toC) > 0 {
		it := &st.toC[0]
		if it.end && st.ticket != nil && !st.settled {
			if !st.settling {
				st.settling = true
				go s.settle(st)
			}
			return
		}
		if it.hdr != nil {
			st.respHdrs = true
		}
		if !s.writeItem(s.c, st, st.cid, st.cWin, it) {
			return
		}
		end := it.end
		st.toC = st.toC[1:]
		if end {
			s.finish(st)
			return
		}
	}
}

// finish forgets a call whose last frame went to the client: a client
// still sending is told to stop (RST_STREAM NO_ERROR, as gRPC servers
// do), and so is an upstream that still has the request open.
func (s *session) finish(st *stream) {
	if st.phase == phaseDone {
		return
	}
	if !st.cEnd {
		_ = s.c.fr.WriteRSTStream(st.cid, http2.ErrCodeNo)
	}
	if st.uid != 0 && !st.upClosed && s.u != nil && s.upErr == nil {
		_ = s.u.fr.WriteRSTStream(st.uid, http2.ErrCodeCancel)
	}
	s.forget(st)
}

// forget removes st from the session without writing anything.
func (s *session) forget(st *stream) {
	if st.cancel != nil {
		st.cancel()
	}
	st.phase = phaseDone
	delete(s.byC, st.cid)
	if st.uid != 0 {
		delete(s.byU, st.uid)
	}
	st.toUp, st.toC, st.first = nil, nil, nil
	s.closeIfIdle()
}

// answer ends the call with the listener's own status: trailers-only
// (response HEADERS with END_STREAM), or trailers after response headers
// already sent. Frames still queued for the client are dropped.
func (s *session) answer(st *stream, code codes.Code, msg string, extra fields) {
	if st.phase == phaseDone {
		return
	}
	f := make(fields, 0, 4+len(extra))
	if !st.respHdrs {
		f = append(f, field(":status", "200"), field("content-type", "application/grpc"))
	}
	f = append(f, field("grpc-status", strconv.Itoa(int(code))), field("grpc-message", grpcMessage(msg)))
	f = append(f, extra...)
	st.toC = st.toC[:0]
	st.status, st.message = strconv.Itoa(int(code)), msg
	s.sendC(st, item{hdr: f, end: true})
}

// field is one header field.
func field(name, value string) hpack.HeaderField { return hpack.HeaderField{Name: name, Value: value} }

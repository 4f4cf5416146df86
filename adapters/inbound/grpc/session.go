package grpclistener

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// session relays one client connection over one upstream HTTP/2
// connection of its own. Two goroutines read frames (readLoop, one per
// side), two write them (writer); a call that waits for the gate runs on a
// goroutine of its own (handler.go). Every field below is guarded by mu,
// which no goroutine holds while it reads or writes a socket.
type session struct {
	h      *handler
	remote string
	ctx    context.Context // ends when the session closes
	cancel context.CancelFunc

	mu         sync.Mutex
	c, u       *side
	upKey      upstreamKey
	upName     string                // :authority towards the upstream
	upErr      error                 // the upstream could not be dialled, or its connection failed
	upDraining bool                  // the upstream sent GOAWAY
	upFor      *app.ListenerSettings // the last settings whose upstream is upKey
	scratch    fields                // request fields being encoded upstream
	analyses   map[string]domain.Analysis
	byC        map[uint32]*stream
	byU        map[uint32]*stream
	lastC      uint32 // the highest stream id the client opened
	nextU      uint32 // the next stream id towards the upstream
	goAway     bool   // GOAWAY went to the client: no new calls
	closing    bool   // close once the client's frames are written
	closed     bool
}

// prefaceTimeout bounds the TLS handshake and the client's preface.
const prefaceTimeout = 10 * time.Second

// serveConn relays the client connection c until either side closes it or
// the listener drains. tlsCfg, when set, is the listener's TLS.
func (h *handler) serveConn(c net.Conn, tlsCfg *tls.Config, set *sessionSet) {
	remote := c.RemoteAddr().String()
	_ = c.SetDeadline(time.Now().Add(prefaceTimeout))
	if tlsCfg != nil {
		tc := tls.Server(c, tlsCfg)
		if err := tc.Handshake(); err != nil {
			h.log.Debug("client TLS handshake failed", "client", remote, "error", err)
			_ = c.Close()
			return
		}
		c = tc
	}
	fr := &flushReader{conn: c}
	br := bufio.NewReaderSize(fr, 32<<10)
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(br, preface); err != nil || string(preface) != http2.ClientPreface {
		h.log.Info("client connection closed: not an HTTP/2 client preface", "client", remote, "error", err)
		_ = c.Close()
		return
	}
	_ = c.SetDeadline(time.Time{})
	hb := uint32(h.l.Limits().HeaderBytes)
	ctx, cancel := context.WithCancel(context.Background())
	s := &session{h: h, remote: remote, ctx: ctx, cancel: cancel, byC: map[uint32]*stream{}, byU: map[uint32]*stream{}, nextU: 1}
	s.c = newSide("client", c, br, hb)
	s.c.settings(hb, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: maxStreams})
	if !set.add(s) {
		_ = c.Close()
		return
	}
	defer set.remove(s)
	fr.s = s
	go s.writer(s.c)
	s.c.kick() // the client may wait for the relay's SETTINGS before its first call
	s.dial(h.l.Settings())
	s.readLoop(s.c, s.clientFrame)
	s.close()
}

// dial opens the upstream connection for listener settings ls and starts
// its reader and writer; a failure is kept in upErr, and the calls that
// would go upstream end with UNAVAILABLE.
func (s *session) dial(ls *app.ListenerSettings) {
	key, name := upstreamOf(ls)
	conn, err := s.h.dial(s.ctx, key)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.upKey, s.upName = key, name
	if err != nil {
		s.upErr = fmt.Errorf("upstream %s: %w", ls.Upstream, err)
		s.h.log.Error("no upstream connection", "upstream", ls.Upstream, "error", err)
		return
	}
	if s.closed {
		_ = conn.Close()
		return
	}
	hb := uint32(s.h.l.Limits().HeaderBytes)
	s.u = newSide("upstream", conn, bufio.NewReaderSize(&flushReader{conn: conn, s: s}, 32<<10), hb)
	s.u.out = append(s.u.out, http2.ClientPreface...)
	s.u.settings(hb, http2.Setting{ID: http2.SettingEnablePush, Val: 0})
	go s.writer(s.u)
	go func() {
		err := s.readLoop(s.u, s.upstreamFrame)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.upstreamLost(err)
	}()
}

// readLoop reads the frames of side d and hands each to handle under the
// session's lock until the connection fails or handle returns an error (a
// connection error: GOAWAY went out). Stream errors reset that stream only.
// A HEADERS frame is handed over with its block decoded into d.blk.
func (s *session) readLoop(d *side, handle func(http2.Frame) error) error {
	for {
		f, err := d.readFrame()
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return net.ErrClosed
		}
		if err != nil {
			if se, ok := streamError(err); ok {
				s.h.log.Info("stream reset: malformed frame", "side", d.name, "client", s.remote, "stream", se.StreamID, "error", err)
				s.streamError(d, se)
				s.mu.Unlock()
				continue
			}
			s.connError(d, err)
			s.mu.Unlock()
			return err
		}
		if err := handle(f); err != nil {
			s.connError(d, err)
			s.mu.Unlock()
			return err
		}
		s.mu.Unlock()
	}
}

// streamError reports whether err is an error of one stream only.
func streamError(err error) (http2.StreamError, bool) {
	var se http2.StreamError
	ok := errors.As(err, &se)
	return se, ok
}

// connError ends the session after a read error on side d. A protocol
// error is answered with GOAWAY and logged; a closed connection is not.
func (s *session) connError(d *side, err error) {
	var ce http2.ConnectionError
	if errors.As(err, &ce) {
		s.h.log.Warn("connection closed: HTTP/2 protocol error", "side", d.name, "client", s.remote, "error", err)
		_ = d.fr.WriteGoAway(s.lastOf(d), http2.ErrCode(ce), nil)
	} else if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		s.h.log.Debug("connection ended", "side", d.name, "client", s.remote, "error", err)
	}
	if d == s.c {
		s.closeLocked()
		return
	}
	s.upstreamLost(err)
}

// lastOf is the last stream id of side d that the relay processed.
func (s *session) lastOf(d *side) uint32 {
	if d == s.c {
		return s.lastC
	}
	return 0
}

// writer writes the frames encoded for side d when kicked, until the
// session closes.
func (s *session) writer(d *side) {
	for {
		select {
		case <-d.wake:
		case <-s.ctx.Done():
			return
		}
		s.flush(d)
	}
}

// flushAll writes what waits for either side, taking the session's lock
// once before and once after the writes.
func (s *session) flushAll() {
	s.mu.Lock()
	bc := s.take(s.c)
	var bu []byte
	if s.u != nil {
		bu = s.take(s.u)
	}
	s.mu.Unlock()
	if bc == nil && bu == nil {
		return
	}
	var errC, errU error
	if bc != nil {
		_, errC = s.c.conn.Write(bc)
	}
	if bu != nil {
		_, errU = s.u.conn.Write(bu)
	}
	s.mu.Lock()
	moreC := s.written(s.c, bc, errC)
	moreU := s.u != nil && s.written(s.u, bu, errU)
	more := moreC || moreU
	s.mu.Unlock()
	if more {
		s.flush(s.c)
		s.mu.Lock()
		u := s.u
		s.mu.Unlock()
		if u != nil {
			s.flush(u)
		}
	}
}

// flush writes the frames encoded for side d, outside the session's lock,
// unless another goroutine is writing them already (it writes these too).
// A client connection due to close closes once its frames are written.
func (s *session) flush(d *side) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		b := s.take(d)
		if b == nil {
			if d == s.c && s.closing && !d.writing && len(d.out) == 0 {
				s.closeLocked()
			}
			return
		}
		s.mu.Unlock()
		_, err := d.conn.Write(b)
		s.mu.Lock()
		if !s.written(d, b, err) {
			return
		}
	}
}

// take returns d's frames for the caller to write outside the lock (nil
// when there are none or another goroutine writes them); the caller then
// calls written.
func (s *session) take(d *side) []byte {
	if d.writing || len(d.out) == 0 || s.closed {
		return nil
	}
	d.writing = true
	b := d.out
	d.out = d.spare[:0]
	return b
}

// written ends a write of b (from take) to d with error err, and reports
// whether more frames wait for d. b nil: nothing was taken.
func (s *session) written(d *side, b []byte, err error) bool {
	if b == nil {
		return false
	}
	d.writing = false
	d.spare = b[:0]
	if err != nil {
		if d == s.c {
			s.closeLocked()
		} else {
			s.upstreamLost(err)
			s.c.kick()
		}
		return false
	}
	if d == s.c && s.closing && len(d.out) == 0 {
		s.closeLocked()
	}
	return len(d.out) > 0 && !s.closed
}

// kick wakes both writer goroutines: for frames encoded by a goroutine
// that reads none (the gate's, a drain).
func (s *session) kick() {
	s.c.kick()
	if s.u != nil {
		s.u.kick()
	}
}

// goAwayClient tells the client to open no more calls on this connection
// (GOAWAY, NO_ERROR) and closes it once its last call ends.
func (s *session) goAwayClient() {
	if s.goAway || s.closed {
		return
	}
	s.goAway = true
	_ = s.c.fr.WriteGoAway(s.lastC, http2.ErrCodeNo, nil)
	s.c.kick()
	s.closeIfIdle()
}

// closeIfIdle closes a session that sent GOAWAY once no call is left,
// after its last frames are written.
func (s *session) closeIfIdle() {
	if s.goAway && len(s.byC) == 0 {
		s.closing = true
		s.c.kick()
	}
}

// upstreamLost ends every call relayed upstream with UNAVAILABLE after the
// upstream connection failed or was closed, and sends the client away.
func (s *session) upstreamLost(err error) {
	if s.closed || s.upErr != nil {
		return
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = errors.New("the upstream closed the connection")
	}
	s.upErr = err
	for _, st := range s.byU {
		s.answer(st, codes.Unavailable, "grpc listener: upstream connection lost: "+err.Error(), nil)
	}
	if s.u != nil {
		_ = s.u.conn.Close()
	}
	s.goAwayClient()
}

// close ends the session: both connections close, calls waiting for the
// gate end (their clients are gone), approvals of calls in flight are
// spent.
func (s *session) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeLocked()
}

func (s *session) closeLocked() {
	if s.closed {
		return
	}
	s.closed = true
	s.cancel()
	_ = s.c.conn.Close()
	if s.u != nil {
		_ = s.u.conn.Close()
	}
	for _, st := range s.byC {
		st.gone()
	}
	clear(s.byC)
	clear(s.byU)
}

// sessionSet tracks a listener's sessions for draining.
type sessionSet struct {
	mu       sync.Mutex
	sessions map[*session]struct{}
	draining bool
	empty    chan struct{} // closed when draining and no session is left
	log      *slog.Logger
}

func newSessionSet(log *slog.Logger) *sessionSet {
	return &sessionSet{sessions: map[*session]struct{}{}, empty: make(chan struct{}), log: log}
}

// add registers s; false when the listener is draining.
func (t *sessionSet) add(s *session) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.draining {
		return false
	}
	t.sessions[s] = struct{}{}
	return true
}

func (t *sessionSet) remove(s *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.sessions, s)
	if t.draining && len(t.sessions) == 0 {
		close(t.empty)
	}
}

// drain sends every client GOAWAY and waits until their calls end, or
// until deadline closes: then it closes the sessions left.
func (t *sessionSet) drain(deadline <-chan struct{}) {
	t.mu.Lock()
	t.draining = true
	if len(t.sessions) == 0 {
		close(t.empty)
	}
	all := make([]*session, 0, len(t.sessions))
	for s := range t.sessions {
		all = append(all, s)
	}
	t.mu.Unlock()
	for _, s := range all {
		s.mu.Lock()
		s.goAwayClient()
		s.mu.Unlock()
	}
	select {
	case <-t.empty:
		return
	case <-deadline:
	}
	t.mu.Lock()
	all = all[:0]
	for s := range t.sessions {
		all = append(all, s)
	}
	t.mu.Unlock()
	for _, s := range all {
		s.close()
	}
	t.log.Info("grpc listener: calls still running at the drain deadline were ended")
	<-t.empty
}

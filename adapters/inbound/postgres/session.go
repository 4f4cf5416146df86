package postgres

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/connbuf"
	"github.com/hoophq/sidecar/internal/drain"
)

// session is one client connection and its upstream connection. One
// goroutine reads the client (readClient) and decides statements; another
// relays the upstream's answers (relay). They share the expectation queue
// and the client writer under mu.
type session struct {
	p       *Protocol
	l       *app.Listener
	log     *slog.Logger
	tickets app.Tickets // approvals claimed on this session
	// unflushed are the approvals claimed since the client reader last
	// flushed uw: their statements are written to the upstream when the
	// next flush succeeds (app.Ticket.Sent). Client reader only.
	unflushed []*app.Ticket

	client net.Conn
	cr     frameReader
	up     net.Conn
	ur     *connbuf.Reader
	uw     *connbuf.Writer // written by the client reader only

	user         string
	database     string // the startup's database (PostgreSQL's default: the user name)
	upstreamAddr string
	// Set by the reader on its first statement: the client's address and
	// the identity values (the database) every statement is asked with.
	clientAddr     string
	identityValues map[string][]string
	upstreamTLS    app.TLSClient
	returnMode     atomic.Bool
	// TLS on each side, and whether SCRAM-SHA-256-PLUS may reach the client
	// (only when the listener presents the upstream's own certificate).
	clientTLS, upstreamIsTLS, keepChannelBinding bool
	saslStarted                                  atomic.Bool // the upstream asked for SASL; the next 'p' is its first message
	authed                                       atomic.Bool // the startup's ReadyForQuery arrived: the client is logged in

	// Shared with the relay, under mu.
	mu       sync.Mutex
	drained  *sync.Cond // signalled whenever an expectation is popped
	cw       *connbuf.Writer
	fifo     []*expect
	pushed   uint64
	popped   uint64
	skipping bool // the upstream discards messages until Sync after an error
	// muted: a masking rule withheld a result; the upstream's answers up
	// to ReadyForQuery are not shown (mask.go).
	muted bool
	// Settings the analysis depends on, from the upstream's ParameterStatus.
	scsOff         bool
	clientEncoding string
	// cursors: what each cursor the client declared reads (cursor.go).
	cursors    cursors
	txStatus   byte
	relayDone  bool
	cancelKeys []string
	// Drain (drain.go): the listener stopped; close once idle.
	drain.Guard
	terminated bool
	busy       bool // the reader is handling a client message
	midUnit    bool // the last client message began or continued an extended-protocol unit

	// The wait of a held statement (wait mode), ended by a CancelRequest
	// or by the end of the connection (wait.go); holdSpec is made once by
	// holdFor, on the reader.
	wait     app.WaitHandle
	holdSpec *app.Hold

	// Reader-only state: prepared statements and portals by name (names.go),
	// the extended-protocol messages not yet forwarded, and the current Sync
	// batch.
	names        names
	pending      []pendingMsg
	pendingSize  int
	pendingExecs int
	discarding   bool
	batch        *batch
	// held is the held-payload budget taken by the messages read since
	// pending was last empty (held.go).
	held []*app.Reservation
}

func newSession(p *Protocol, l *app.Listener, log *slog.Logger, client net.Conn, cr frameReader, up net.Conn) *session {
	s := &session{p: p, l: l, log: log, client: client, cr: cr, up: up,
		ur: connbuf.NewReader(up), uw: connbuf.NewWriter(up), cw: connbuf.NewWriter(client),
		txStatus: 'I', names: newNames()}
	s.drained = sync.NewCond(&s.mu)
	s.Guard.Init(&s.mu, s.idleLocked, s.shutdownLocked)
	return s
}

// Run relays the session until either side ends it.
func (s *session) Run() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("postgres relay failed; connection closed", "panic", r, "stack", string(debug.Stack()))
				s.client.Close()
			}
		}()
		s.relay()
	}()
	err := s.readClient()
	var pe *protocolError
	if errors.As(err, &pe) {
		s.log.Warn("postgres client broke the protocol; connection closed", "error", err)
		s.mu.Lock()
		s.cw.Write(encode(fatal(CodeProtocol, "hoop sidecar: "+pe.msg)))
		s.cw.Flush()
		s.mu.Unlock()
	} else if err != nil && !isClosed(err) {
		s.log.Info("postgres connection ended", "error", err)
	}
	s.up.Close()
	<-done
	// An answer that never came (the upstream lost mid-answer, a write that
	// failed after the statement went out) leaves the outcome unknown:
	// spend what is still claimed (app.Tickets).
	s.tickets.SpendAll()
	s.mu.Lock()
	keys := s.cancelKeys
	s.mu.Unlock()
	for _, k := range keys {
		s.p.cancels.remove(k, s)
	}
}

// readClient reads client messages until the client leaves or breaks the
// protocol. It flushes what it forwarded whenever no more input is waiting.
func (s *session) readClient() error {
	defer s.releaseHeld()
	for {
		if s.cr.Buffered() == 0 {
			if err := s.uw.Flush(); err != nil {
				return err
			}
			for _, t := range s.unflushed {
				t.Sent()
			}
			clear(s.unflushed) // keep no settled ticket alive in the backing array
			s.unflushed = s.unflushed[:0]
		}
		first, err := s.cr.Peek(1)
		if err != nil {
			return err
		}
		typ := first[0]
		s.mu.Lock()
		s.busy = true
		s.mu.Unlock()
		if err := s.readClientFrame(); err != nil {
			return err
		}
		s.mu.Lock()
		s.busy = false
		switch typ {
		case 'P', 'B', 'D', 'E', 'C', 'H':
			s.midUnit = true
		case 'Q', 'S', 'F':
			s.midUnit = false
		}
		s.CloseIfIdleLocked()
		s.mu.Unlock()
	}
}

func (s *session) fromClient(typ byte, frame []byte) error {
	if typ != 'p' && typ != 'X' && !s.authed.Load() {
		// Nothing from a client that has not logged in is analysed, filed or
		// forwarded. Clients wait for ReadyForQuery, which the relay passes on
		// only after it set authed.
		return protoErr("message %q before authentication completed", typ)
	}
	if s.discarding && typ != 'S' && typ != 'X' {
		return nil // after a held statement, PostgreSQL's rule: discard until Sync
	}
	switch typ {
	case 'Q':
		return s.query(frame)
	case 'P', 'B', 'D', 'E', 'C':
		return s.extended(typ, frame)
	case 'H':
		return s.endUnit(false, frame)
	case 'S':
		return s.endUnit(true, frame)
	case 'F':
		return s.functionCall(frame)
	case 'X':
		s.forward(frame)
		s.uw.Flush()
		return io.EOF
	case 'p':
		if s.saslStarted.CompareAndSwap(true, false) {
			if err := s.checkChannelBinding(frame); err != nil {
				return err
			}
		}
		return s.forward(frame)
	default: // CopyData, CopyDone, CopyFail
		return s.forward(frame)
	}
}

// rules returns the listener's settings for one unit (a Query, a Sync
// batch, a FunctionCall). A unit reads them once: its analysis and its
// decision use the same rule set even when a reload lands in between.
func (s *session) rules() *app.ListenerSettings {
	if s.p.snapshot != nil {
		return s.p.snapshot(s.l)
	}
	return s.l.Settings()
}

func (s *session) forward(frame []byte) error {
	_, err := s.uw.Write(frame)
	return err
}

// checkChannelBinding refuses, with an explanation, a SCRAM exchange the
// upstream is bound to refuse: a client on TLS that supports channel
// binding ('y' flag) while the upstream, also on TLS, supports it too.
func (s *session) checkChannelBinding(frame []byte) error {
	var m pgproto3.SASLInitialResponse
	if m.Decode(body(frame)) != nil || len(m.Data) == 0 || m.Data[0] != 'y' || !s.upstreamIsTLS {
		return nil
	}
	s.mu.Lock()
	s.cw.Write(encode(fatal("28000", "hoop sidecar: SCRAM channel binding cannot pass through the Sidecar: "+
		"connect with channel_binding=disable, or give the listener the upstream's own certificate")))
	s.cw.Flush()
	s.mu.Unlock()
	return io.EOF
}

// ready is called by the relay once authentication succeeded.
func (s *session) ready() {
	s.authed.Store(true)
	s.client.SetDeadline(time.Time{})
}

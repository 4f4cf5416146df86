package httplistener

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/drain"
	"github.com/hoophq/sidecar/internal/logging"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// ProtocolName is the protocol's name in the config file.
const ProtocolName = "http"

// Protocol is the http listener protocol. One value serves any number of
// listeners; it is safe for concurrent use.
type Protocol struct {
	log *slog.Logger

	mu         sync.Mutex
	transports map[transportKey]*http.Transport

	buffers proxyBuffers
}

// New returns the http protocol, logging through log (a discarding logger
// when nil).
func New(log *slog.Logger) *Protocol {
	return &Protocol{log: logging.OrDiscard(log), transports: map[transportKey]*http.Transport{}}
}

// Name returns "http".
func (p *Protocol) Name() string { return ProtocolName }

// Serve serves the listener l on ln until ctx is cancelled or ln is closed,
// then returns nil, and the connections drain (app.Protocol): idle
// keep-alive connections close at once, a request in flight gets its
// response (with Connection: close) and then its connection closes. When
// l.DrainDeadline is closed, the connections left are closed. Other errors
// (a certificate that does not load) are returned.
//
// Without TLS, the relay (relay.go) serves each connection for as long as
// its requests are plain to forward, and hands it to net/http's server
// (handoff.go) at the first that is not. With l's TLS settings net/http's
// server serves TLS on ln, HTTP/1.1 only.
func (p *Protocol) Serve(ctx context.Context, ln net.Listener, l *app.Listener) error {
	s := l.Settings()
	log := p.log.With("listener", s.Name, "protocol", ProtocolName)
	h := &handler{p: p, l: l, log: log, errLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		routes: routes{p: p}}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: relayHeadTimeout,
		MaxHeaderBytes:    l.Limits().HeaderBytes,
		IdleTimeout:       relayIdleTimeout,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			ci := &connInfo{}
			if hc, ok := c.(*handoffConn); ok {
				ci.requests.Store(hc.served)
			}
			return context.WithValue(ctx, connKey{}, ci)
		},
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		// An empty map turns HTTP/2 off: the status path's "first request
		// on a connection" rule is an HTTP/1.1 rule.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	relays := &relaySet{conns: map[*relayConn]struct{}{}}
	var once sync.Once
	drain := func() {
		once.Do(func() {
			relays.drain()
			go p.drain(srv, relays, l, log)
		})
	}
	stop := context.AfterFunc(ctx, func() { _ = ln.Close(); drain() })
	defer stop()
	log.Debug("http listener serving", "addr", ln.Addr().String(), "upstream", s.Upstream, "tls", s.TLS.Enabled())
	var err error
	if s.TLS.Enabled() {
		certs := tlsconf.NewCertLoader(l)
		if _, err := certs.Get(nil); err != nil {
			return err
		}
		err = srv.Serve(tls.NewListener(ln, certs.Config("http/1.1")))
	} else {
		hl := newHandoffListener(ln.Addr())
		go func() { _ = srv.Serve(hl) }()
		err = acceptRelay(ln, h, relays, hl)
		_ = ln.Close()
	}
	drain()
	if ctx.Err() != nil || errors.Is(err, net.ErrClosed) || errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// acceptRelay accepts client connections on ln and relays each until ln
// is closed (drain.Accept: temporary errors are waited out).
func acceptRelay(ln net.Listener, h *handler, relays *relaySet, hl *handoffListener) error {
	return drain.Accept(ln, func(c net.Conn) { h.serveRelay(c, relays, hl) }, nil)
}

// drain shuts srv down gracefully and waits for the relayed connections to
// end, and closes the connections left when l's drain deadline passes.
func (p *Protocol) drain(srv *http.Server, relays *relaySet, l *app.Listener, log *slog.Logger) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-l.DrainDeadline():
			cancel()
		case <-ctx.Done():
		}
	}()
	err := srv.Shutdown(ctx)
	for err == nil && relays.len() > 0 {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err != nil {
		_ = srv.Close()
		relays.closeAll()
		log.Info("http listener: connections still open at the drain deadline were closed")
		return
	}
	log.Info("http listener drained")
}

// connKey keys the per-connection state in a request's context.
type connKey struct{}

// connInfo is the state of one client connection.
type connInfo struct {
	// requests counts the requests read on the connection so far.
	requests atomic.Int64
}

// requestNumber counts r on its connection and returns its 1-based position.
// It returns 1 when the connection state is missing (a handler used outside
// Serve, e.g. in a unit test with httptest.NewRecorder).
func requestNumber(r *http.Request) int64 {
	ci, ok := r.Context().Value(connKey{}).(*connInfo)
	if !ok {
		return 1
	}
	return ci.requests.Add(1)
}

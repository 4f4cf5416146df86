package grpclistener

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/drain"
	"github.com/hoophq/sidecar/internal/logging"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// ProtocolName is the protocol's name in the config file.
const ProtocolName = "grpc"

// MaxMessageBytes is the largest single message the listener
// accepts in either direction: 64 MiB. gRPC's own default is 4 MiB; the
// listener allows more so that it is never stricter than an upstream that
// raised its limit. Larger messages end the call with RESOURCE_EXHAUSTED.
const MaxMessageBytes = 64 << 20

// Protocol is the grpc listener protocol. One value serves any number of
// listeners; it is safe for concurrent use.
type Protocol struct {
	log *slog.Logger
}

// New returns the grpc protocol, logging through log (a discarding logger
// when nil).
func New(log *slog.Logger) *Protocol {
	return &Protocol{log: logging.OrDiscard(log)}
}

// Name returns "grpc".
func (p *Protocol) Name() string { return ProtocolName }

// Serve serves the listener l on ln until ctx is cancelled or ln is closed.
// Each client connection is relayed over an HTTP/2 connection of its own to
// the upstream, frame by frame (session.go). Then it drains: every client
// is sent GOAWAY, running calls (streams included) finish, and Serve
// returns nil once they have; when l.DrainDeadline is closed first, the
// connections left are closed and their clients see UNAVAILABLE
// (app.Protocol). With l's TLS settings it serves TLS on ln (ALPN h2),
// else plaintext HTTP/2 (h2c). Other errors (a certificate that does not
// load) are returned.
func (p *Protocol) Serve(ctx context.Context, ln net.Listener, l *app.Listener) error {
	s := l.Settings()
	log := p.log.With("listener", s.Name, "protocol", ProtocolName)
	h := &handler{l: l, log: log, dial: dialUpstream}
	var tlsCfg *tls.Config
	if s.TLS.Enabled() {
		certs := tlsconf.NewCertLoader(l)
		if _, err := certs.Get(nil); err != nil {
			return err
		}
		tlsCfg = certs.Config("h2")
	}
	set := newSessionSet(log)
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() })
	defer stop()
	log.Debug("grpc listener serving", "addr", ln.Addr().String(), "upstream", s.Upstream, "tls", s.TLS.Enabled())
	err := accept(ln, h, tlsCfg, set)
	_ = ln.Close()
	set.drain(l.DrainDeadline())
	log.Info("grpc listener drained")
	if err == nil || ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return fmt.Errorf("grpc listener %s: %w", s.Name, err)
}

// accept accepts client connections on ln and relays each until ln is
// closed (drain.Accept: temporary errors are waited out).
func accept(ln net.Listener, h *handler, tlsCfg *tls.Config, set *sessionSet) error {
	return drain.Accept(ln, func(c net.Conn) { h.serveConn(c, tlsCfg, set) }, nil)
}

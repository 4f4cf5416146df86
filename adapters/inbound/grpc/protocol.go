package grpclistener

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	_ "google.golang.org/grpc/encoding/gzip" // accept gzip-compressed requests from clients

	"github.com/hoophq/sidecar/app"
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

// Serve serves the listener l on ln until ctx is cancelled or ln is closed,
// then returns nil. Calls still running at that point are not cut: the
// server stops accepting, tells clients to go away (GOAWAY) and drains them
// in the background (GracefulStop), then closes its upstream connections
// (app.Protocol). When l.DrainDeadline is closed first, Stop ends the calls
// left: their clients see UNAVAILABLE.
// With l's TLS settings it serves TLS on ln, else plaintext HTTP/2 (h2c).
// Other errors (a certificate that does not load) are returned.
func (p *Protocol) Serve(ctx context.Context, ln net.Listener, l *app.Listener) error {
	s := l.Settings()
	log := p.log.With("listener", s.Name, "protocol", ProtocolName)
	ups := newUpstreams(log, uint32(l.Limits().HeaderBytes))
	h := &handler{l: l, log: log, ups: ups}
	opts := []grpc.ServerOption{
		grpc.ForceServerCodecV2(rawCodec{}),
		grpc.UnknownServiceHandler(h.handle),
		grpc.MaxRecvMsgSize(MaxMessageBytes),
		grpc.MaxSendMsgSize(MaxMessageBytes),
		// Metadata is held whole by the transport: cap it (limits.header_bytes).
		grpc.MaxHeaderListSize(uint32(l.Limits().HeaderBytes)),
		// Calls run on a pool of goroutines whose stacks have already grown
		// to the proxy's depth: a new goroutine per call spent ~15% of the
		// listener's CPU growing its stack (bench/grpc.sh profile). grpc
		// starts a new goroutine when every worker is busy (e.g. waiting for
		// an approval).
		grpc.NumStreamWorkers(uint32(4 * runtime.GOMAXPROCS(0))),
	}
	if s.TLS.Enabled() {
		certs := tlsconf.NewCertLoader(l)
		if _, err := certs.Get(nil); err != nil {
			return err
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(certs.Config())))
	}
	srv := grpc.NewServer(opts...)
	var once sync.Once
	drain := func() {
		once.Do(func() {
			go func() {
				done := make(chan struct{})
				defer close(done)
				go func() {
					select {
					case <-l.DrainDeadline():
						srv.Stop()
						log.Info("grpc listener: calls still running at the drain deadline were ended")
					case <-done:
					}
				}()
				srv.GracefulStop()
				ups.closeAll()
				log.Info("grpc listener drained")
			}()
		})
	}
	stop := context.AfterFunc(ctx, drain)
	defer stop()
	log.Debug("grpc listener serving", "addr", ln.Addr().String(), "upstream", s.Upstream, "tls", s.TLS.Enabled())
	err := srv.Serve(ln)
	drain()
	if err == nil || ctx.Err() != nil || errors.Is(err, net.ErrClosed) || errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return fmt.Errorf("grpc listener %s: %w", s.Name, err)
}

package upstream

import (
	"crypto/tls"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"

	"github.com/hoophq/sidecar/conformance/grpc/testpb"
)

// Options configures Start.
type Options struct {
	// TLS, when set, makes the server speak TLS with this configuration.
	TLS *tls.Config
}

// Server is a running upstream.
type Server struct {
	// Addr is the bound 127.0.0.1:port.
	Addr string

	mu       sync.Mutex
	counts   map[string]int
	metadata map[string][]metadata.MD
	slowErrs chan error
}

// Start runs the upstream until the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var opts []grpc.ServerOption
	if o.TLS != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(o.TLS)))
	}
	// Large enough for the suite's biggest message in either direction.
	opts = append(opts, grpc.MaxRecvMsgSize(64<<20), grpc.MaxSendMsgSize(64<<20))
	s := &Server{Addr: ln.Addr().String(), counts: map[string]int{}, metadata: map[string][]metadata.MD{},
		slowErrs: make(chan error, 16)}
	srv := grpc.NewServer(opts...)
	testpb.RegisterProbeServer(srv, &probe{s: s})
	hs := health.NewServer()
	hs.SetServingStatus("hoop.probe.v1.Probe", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	reflection.Register(srv)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return s
}

// record counts one call of method and keeps its incoming metadata.
func (s *Server) record(method string, md metadata.MD) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[method]++
	s.metadata[method] = append(s.metadata[method], md.Copy())
}

// Count returns how many calls of method (e.g. "Unary") reached the server.
func (s *Server) Count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[method]
}

// Metadata returns the incoming metadata of every call of method, in order.
func (s *Server) Metadata(method string) []metadata.MD {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]metadata.MD(nil), s.metadata[method]...)
}

// SlowEnded waits up to timeout for a Slow call to end and returns the
// context error it ended with (nil when it ran to its end). ok is false when
// none ended in time.
func (s *Server) SlowEnded(timeout time.Duration) (err error, ok bool) {
	select {
	case err := <-s.slowErrs:
		return err, true
	case <-time.After(timeout):
		return nil, false
	}
}

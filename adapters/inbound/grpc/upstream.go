package grpclistener

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// upstreamKey names one client connection: a reload that changes the
// upstream or its TLS settings gets a new connection; calls on the old one
// finish on it.
type upstreamKey struct {
	target string
	tls    app.TLSClient
}

// upstreams holds a listener's client connections to its upstream(s).
type upstreams struct {
	log *slog.Logger
	// headerBytes caps the upstream's response metadata and trailers.
	headerBytes uint32
	mu          sync.Mutex
	conns       map[upstreamKey]*grpc.ClientConn
}

func newUpstreams(log *slog.Logger, headerBytes uint32) *upstreams {
	return &upstreams{log: log, headerBytes: headerBytes, conns: map[upstreamKey]*grpc.ClientConn{}}
}

// target returns the gRPC dial target and TLS settings for s.Upstream:
// "host:port" as is (also any gRPC target such as dns:///host:port or
// unix:///path); "http://host:port" without its scheme; "https://host:port"
// without its scheme and with TLS on.
func target(s *app.ListenerSettings) (string, app.TLSClient) {
	t, tc := s.Upstream, s.UpstreamTLS
	switch {
	case strings.HasPrefix(t, "https://"):
		t, tc.Enabled = strings.TrimPrefix(t, "https://"), true
	case strings.HasPrefix(t, "http://"):
		t = strings.TrimPrefix(t, "http://")
	}
	return strings.TrimSuffix(t, "/"), tc
}

// conn returns the shared client connection for s's upstream, creating it on
// first use. The connection speaks h2c (plaintext HTTP/2) unless upstream
// TLS is enabled. Retries and service configs from DNS are off: a call that
// used an approval is sent at most once.
func (u *upstreams) conn(s *app.ListenerSettings) (*grpc.ClientConn, error) {
	t, tc := target(s)
	key := upstreamKey{t, tc}
	u.mu.Lock()
	defer u.mu.Unlock()
	if c, ok := u.conns[key]; ok {
		return c, nil
	}
	creds := insecure.NewCredentials()
	if tc.Enabled {
		cfg, err := tlsconf.Client(tc, "")
		if err != nil {
			return nil, err
		}
		creds = credentials.NewTLS(cfg)
	}
	c, err := grpc.NewClient(t,
		grpc.WithTransportCredentials(creds),
		grpc.WithDisableRetry(),
		grpc.WithDisableServiceConfig(),
		grpc.WithMaxHeaderListSize(u.headerBytes),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawCodec{}),
			grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)),
	)
	if err != nil {
		return nil, fmt.Errorf("upstream %q: %w", s.Upstream, err)
	}
	u.conns[key] = c
	return c, nil
}

// closeAll closes every connection (after the server drained).
func (u *upstreams) closeAll() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for k, c := range u.conns {
		if err := c.Close(); err != nil {
			u.log.Warn("closing upstream connection", "upstream", k.target, "error", err)
		}
		delete(u.conns, k)
	}
}

package grpclistener

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// upstreamKey names one upstream: a reload that changes the upstream or its
// TLS settings sends clients to a new connection; calls running on the old
// one finish on it.
type upstreamKey struct {
	target string
	tls    app.TLSClient
}

// target returns the dial target and TLS settings for s.Upstream:
// "host:port" as is (also dns:///host:port and unix:///path);
// "http://host:port" without its scheme; "https://host:port" without its
// scheme and with TLS on.
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

// upstreamOf returns the upstream of listener settings s and the
// :authority calls carry to it (its host:port, as a gRPC client of it
// sends).
func upstreamOf(s *app.ListenerSettings) (upstreamKey, string) {
	t, tc := target(s)
	network, addr := dialAddr(t)
	if network == "unix" {
		return upstreamKey{t, tc}, "localhost"
	}
	return upstreamKey{t, tc}, addr
}

// dialAddr reads a gRPC target: unix:///path, unix:path, dns:///host:port
// (resolved by the system), passthrough:///host:port or host:port.
func dialAddr(t string) (network, addr string) {
	switch {
	case strings.HasPrefix(t, "unix://"):
		return "unix", strings.TrimPrefix(t, "unix://")
	case strings.HasPrefix(t, "unix:"):
		return "unix", strings.TrimPrefix(t, "unix:")
	case strings.HasPrefix(t, "dns:///"):
		return "tcp", strings.TrimPrefix(t, "dns:///")
	case strings.HasPrefix(t, "passthrough:///"):
		return "tcp", strings.TrimPrefix(t, "passthrough:///")
	}
	return "tcp", t
}

// dialTimeout bounds the connection to the upstream and its TLS handshake.
const dialTimeout = 10 * time.Second

// dialUpstream connects to the upstream k: h2c, or TLS with ALPN h2 when
// k.tls is enabled (verified against its ca_file, else the system roots,
// and server_name). The HTTP/2 preface is the caller's.
func dialUpstream(ctx context.Context, k upstreamKey) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	network, addr := dialAddr(k.target)
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	if !k.tls.Enabled {
		return c, nil
	}
	cfg, err := tlsconf.Client(k.tls, addr)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	cfg.NextProtos = []string{"h2"}
	tc := tls.Client(c, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
		_ = c.Close()
		return nil, fmt.Errorf("the upstream did not agree to HTTP/2 over TLS (ALPN %q)", p)
	}
	return tc, nil
}

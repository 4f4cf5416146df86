package tlsconf

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"github.com/hoophq/sidecar/app"
)

// Upstream connection bounds: the TCP connect, the keep-alive period, and
// the in-band TLS request plus handshake.
const (
	DialTimeout      = 10 * time.Second
	KeepAlive        = 30 * time.Second
	HandshakeTimeout = 10 * time.Second
)

// DialUpstream connects to the upstream at addr (TCP, DialTimeout, KeepAlive
// probes). When t is enabled it then runs request on the connection (the
// protocol's in-band ask for TLS, such as PostgreSQL's SSLRequest and its
// one-byte answer; nil for TLS from the first byte) and the TLS handshake
// (HandshakeUpstream), both within HandshakeTimeout. On an error the
// connection is closed; a handshake error names the upstream.
func DialUpstream(ctx context.Context, addr string, t app.TLSClient, request func(net.Conn) error) (net.Conn, error) {
	d := net.Dialer{Timeout: DialTimeout, KeepAlive: KeepAlive}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil || !t.Enabled {
		return conn, err
	}
	conn.SetDeadline(time.Now().Add(HandshakeTimeout))
	if request != nil {
		if err := request(conn); err != nil {
			conn.Close()
			return nil, err
		}
	}
	tc, err := HandshakeUpstream(ctx, conn, addr, t)
	if err != nil {
		conn.Close()
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	return tc, nil
}

// HandshakeUpstream runs the client side of the TLS handshake on conn
// towards the upstream at addr (Client(t, addr)), within HandshakeTimeout.
// It does not close conn. Errors name the upstream or the file that failed.
func HandshakeUpstream(ctx context.Context, conn net.Conn, addr string, t app.TLSClient) (net.Conn, error) {
	cfg, err := Client(t, addr)
	if err != nil {
		return nil, err
	}
	tc := tls.Client(conn, cfg)
	hctx, cancel := context.WithTimeout(ctx, HandshakeTimeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		return nil, fmt.Errorf("TLS handshake with upstream %s: %w", addr, err)
	}
	return tc, nil
}

// Offered returns the TLS configuration a listener offers its clients on
// one connection: nil, and no error, when t has no certificate; else
// Pinned(alpn...), the certificate of the listener's current settings.
func (c *CertLoader) Offered(t app.TLSServer, alpn ...string) (*tls.Config, error) {
	if !t.Enabled() {
		return nil, nil
	}
	return c.Pinned(alpn...)
}

package postgres

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// serverTLS returns the TLS config offered to clients on one connection
// (nil without a certificate), with the certificate that certs holds for
// the listener's current settings (loaded once, again only when a reload
// names other files). ALPN "postgresql" is what direct TLS (PostgreSQL 17
// sslnegotiation=direct) asks for.
func serverTLS(t app.TLSServer, certs *tlsconf.CertLoader) (*tls.Config, error) {
	if !t.Enabled() {
		return nil, nil
	}
	return certs.Pinned("postgresql")
}

// dialUpstream connects to the upstream at addr, negotiating TLS with an
// SSLRequest when t is enabled. The answer 'N' is an error: the listener
// asked for TLS and the upstream refused it.
func dialUpstream(ctx context.Context, addr string, t app.TLSClient) (net.Conn, error) {
	d := net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if !t.Enabled {
		return conn, nil
	}
	cfg, err := tlsconf.Client(t, addr)
	if err != nil {
		conn.Close()
		return nil, err
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write(encode(&pgproto3.SSLRequest{})); err != nil {
		conn.Close()
		return nil, err
	}
	var answer [1]byte
	if _, err := io.ReadFull(conn, answer[:]); err != nil {
		conn.Close()
		return nil, err
	}
	if answer[0] != 'S' {
		conn.Close()
		return nil, fmt.Errorf("upstream %s refused TLS (answered %q to SSLRequest)", addr, answer[0])
	}
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("TLS handshake with upstream %s: %w", addr, err)
	}
	conn.SetDeadline(time.Time{})
	return tc, nil
}

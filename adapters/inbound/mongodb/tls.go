package mongodb

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// MongoDB has no in-band TLS negotiation: a client with tls=true speaks TLS
// from its first byte, and so does the listener towards an upstream with
// upstream_tls.

// serverTLS wraps conn in TLS when the listener has a certificate (tls:);
// the handshake runs on the first read. Without one it returns conn. With
// tls.client_ca_file the client is asked for a certificate, and one it
// sends must verify against those CAs (a client may send none: it then
// cannot log in with MONGODB-X509, x509.go). Errors name a CA file that
// does not load.
func serverTLS(conn net.Conn, t app.TLSServer, certs *tlsconf.CertLoader) (net.Conn, error) {
	if !t.Enabled() {
		return conn, nil
	}
	cfg := certs.Config()
	if t.ClientCAFile != "" {
		pool, err := tlsconf.ClientCAs(t)
		if err != nil {
			return nil, err
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.VerifyClientCertIfGiven
	}
	return tls.Server(conn, cfg), nil
}

// dialUpstream connects to the upstream at addr, with TLS from the first
// byte when t is enabled.
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
	tc := tls.Client(conn, cfg)
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("TLS handshake with upstream %s: %w", addr, err)
	}
	return tc, nil
}

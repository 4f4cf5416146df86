package mongodb

import (
	"context"
	"crypto/tls"
	"net"

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
// byte when t is enabled (tlsconf.DialUpstream).
func dialUpstream(ctx context.Context, addr string, t app.TLSClient) (net.Conn, error) {
	return tlsconf.DialUpstream(ctx, addr, t, nil)
}

package mysql

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// serverTLS returns the TLS config offered to clients on one connection
// (nil without a certificate), with the certificate that certs holds for
// the listener's current settings.
func serverTLS(t app.TLSServer, certs *tlsconf.CertLoader) (*tls.Config, error) {
	if !t.Enabled() {
		return nil, nil
	}
	return certs.Pinned()
}

// upgradeUpstream sends the upstream an SSLRequest (seq) and completes the
// TLS handshake on conn (MySQL Client/Server Protocol, "SSL Handshake").
func upgradeUpstream(ctx context.Context, conn net.Conn, r *bufio.Reader, addr string, t app.TLSClient, ssl []byte, seq byte) (net.Conn, error) {
	cfg, err := tlsconf.Client(t, addr)
	if err != nil {
		return nil, err
	}
	if _, err := wire.Write(conn, seq, ssl); err != nil {
		return nil, err
	}
	tc := tls.Client(bufferedConn{conn, r}, cfg)
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		return nil, fmt.Errorf("TLS handshake with upstream %s: %w", addr, err)
	}
	return tc, nil
}

// upgradeClient completes a client's TLS handshake after its SSLRequest;
// r is the reader the SSLRequest came from (it may hold the ClientHello).
func upgradeClient(conn net.Conn, r *bufio.Reader, cfg *tls.Config) (net.Conn, *bufio.Reader, error) {
	tc := tls.Server(bufferedConn{conn, r}, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, nil, err
	}
	return tc, bufio.NewReaderSize(tc, 32<<10), nil
}

// bufferedConn reads conn through the reader that already buffers it.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

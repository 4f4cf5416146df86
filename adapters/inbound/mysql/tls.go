package mysql

import (
	"bufio"
	"context"
	"crypto/tls"
	"net"
	"time"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// upgradeUpstream sends the upstream an SSLRequest (seq) and completes the
// TLS handshake on conn (MySQL Client/Server Protocol, "SSL Handshake").
func upgradeUpstream(ctx context.Context, conn net.Conn, r *bufio.Reader, addr string, t app.TLSClient, ssl []byte, seq byte) (net.Conn, error) {
	if _, err := wire.Write(conn, seq, ssl); err != nil {
		return nil, err
	}
	return tlsconf.HandshakeUpstream(ctx, bufferedConn{conn, r}, addr, t)
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

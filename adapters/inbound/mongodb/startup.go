package mongodb

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// startup readies one client connection: TLS from the first byte when the
// listener has a certificate, then a connection to the upstream (TLS when
// upstream_tls is on; with the client certificate of the client's
// x509_logins entry when it has one, x509.go). MongoDB has no startup message of its own: the
// handshake (hello, authentication) is a series of commands that session
// relays. A client whose TLS handshake fails, or whose upstream cannot be
// reached, is closed (there is no request yet to answer).
func startup(conn net.Conn, l *app.Listener, certs *tlsconf.CertLoader, log *slog.Logger, c *cursors) (*session, error) {
	set := l.Settings()
	client, err := serverTLS(conn, set.TLS, certs)
	if err != nil {
		log.Warn("mongodb listener TLS unusable; client connection closed", "error", err)
		return nil, err
	}
	if tc, ok := client.(*tls.Conn); ok {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := tc.HandshakeContext(ctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("TLS handshake with the client: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	x := clientCertificate(client, set)
	up, err := dialUpstream(ctx, set.Upstream, upstreamTLS(set, x))
	if err != nil {
		log.Warn("mongodb upstream unreachable; client connection closed", "upstream", set.Upstream, "error", err)
		return nil, err
	}
	s := &session{
		l:          l,
		log:        log,
		client:     client,
		clientAddr: client.RemoteAddr().String(),
		cr:         bufio.NewReaderSize(client, 32<<10),
		up:         up,
		x509:       x,
		cursors:    c,
		pending:    map[int32]*pending{},
	}
	s.nextID.Store(1 << 30) // the listener's own requestIDs, far from drivers' counters
	return s, nil
}

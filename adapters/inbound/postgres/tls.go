package postgres

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// dialUpstream connects to the upstream at addr, negotiating TLS with an
// SSLRequest when t is enabled (tlsconf.DialUpstream). The answer 'N' is
// an error: the listener asked for TLS and the upstream refused it.
func dialUpstream(ctx context.Context, addr string, t app.TLSClient) (net.Conn, error) {
	return tlsconf.DialUpstream(ctx, addr, t, func(conn net.Conn) error {
		if _, err := conn.Write(encode(&pgproto3.SSLRequest{})); err != nil {
			return err
		}
		var answer [1]byte
		if _, err := io.ReadFull(conn, answer[:]); err != nil {
			return err
		}
		if answer[0] != 'S' {
			return fmt.Errorf("upstream %s refused TLS (answered %q to SSLRequest)", addr, answer[0])
		}
		return nil
	})
}

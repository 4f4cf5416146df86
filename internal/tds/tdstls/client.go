package tdstls

import (
	"crypto/tls"
	"fmt"
	"net"

	"github.com/hoophq/sidecar/internal/tds"
)

// Client negotiates encryption on the client side of a TDS connection: the
// listener's upstream leg, or a test client.
type Client struct {
	// Setting is what the client asks for: NotSupported (no TLS unless the
	// server requires it), Off (at least LOGIN7 under TLS), On or Required
	// (the whole session, else ErrServerCannotEncrypt), Strict (TDS 8.0).
	Setting Setting
	// Config verifies the server (ServerName, RootCAs or
	// InsecureSkipVerify) and may hold a client certificate. Client
	// adapts a copy per mode. Needed unless Setting is NotSupported and
	// the server does not require TLS.
	Config *tls.Config
}

// Begin starts a connection c just dialled: for Strict it completes a TLS
// handshake with ALPN tds/8.0 and returns the TLS connection, on which the
// caller then writes its PRELOGIN; otherwise it returns c. Errors:
// ErrNoConfig, the handshake's error.
func (cl *Client) Begin(c net.Conn) (net.Conn, error) {
	if cl.Setting != Strict {
		return c, nil
	}
	if cl.Config == nil {
		return nil, ErrNoConfig
	}
	tc := tls.Client(c, strictConfig(cl.Config))
	if err := tc.Handshake(); err != nil {
		return nil, fmt.Errorf("tdstls: TDS 8.0 TLS handshake: %w", err)
	}
	return tc, nil
}

// Request returns the ENCRYPTION value for the client's PRELOGIN
// (MS-TDS 2.2.6.5; 0x04 inside a TDS 8.0 session, as go-mssqldb sends).
func (cl *Client) Request() byte { return clientValue(cl.Setting) }

// Outcome reads the server's PRELOGIN answer: StrictTLS for a Strict
// client, else ClientOutcome of what Request sent and what the server
// answered. Errors: ErrServerCannotEncrypt (never a downgrade), an answer
// without ENCRYPTION or outside the table (wrapped ErrBadValue).
func (cl *Client) Outcome(server *tds.Prelogin) (Outcome, error) {
	if cl.Setting == Strict {
		return StrictTLS, nil
	}
	v, ok := server.Encryption()
	if !ok {
		return Plain, fmt.Errorf("%w: the server's PRELOGIN has no ENCRYPTION option", ErrBadValue)
	}
	return ClientOutcome(cl.Request(), v)
}

// Upgrade returns the connection for the rest of the session, after the
// server's PRELOGIN answer was read from c: c itself for Plain and
// StrictTLS; for Full, a TLS connection whose handshake ran in PRELOGIN
// packets; for LoginOnly, a connection that writes the next message
// (LOGIN7) through TLS and everything after it in clear, and reads in clear.
// The caller's deadlines on c bound the handshake. Errors: ErrNoConfig, the
// handshake's error (certificate verification among them).
func (cl *Client) Upgrade(c net.Conn, o Outcome) (net.Conn, error) {
	return upgrade(c, o, cl.Config, false)
}

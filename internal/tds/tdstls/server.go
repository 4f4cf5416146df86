package tdstls

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"

	"github.com/hoophq/sidecar/internal/tds"
)

// recordTypeHandshake is the first byte of a TLS ClientHello record (RFC
// 8446 5.1); a TDS 7.x client opens with PRELOGIN, packet type 0x12.
const recordTypeHandshake = 0x16

// Server negotiates encryption on the server side of TDS connections: a
// listener's client leg, or the tdstest stand-in upstream. It is safe for
// concurrent use once set up (each call handles one connection).
type Server struct {
	// Setting is the server's column of the MS-TDS 2.2.6.5 table (see
	// Negotiate). With any setting but NotSupported, Config must hold a
	// certificate.
	Setting Setting
	// Config is the TLS configuration offered (certificate, versions);
	// Server adapts a copy per mode (ALPN tds/8.0 for strict; TLS 1.2 at
	// most in PRELOGIN packets). See SelfSigned for a server without a
	// configured certificate.
	Config *tls.Config
}

// Begin starts a connection c just accepted. When its first byte is a TLS
// record (a TDS 8.0 strict client), it completes the TLS handshake with ALPN
// tds/8.0 and returns the TLS connection and strict=true; otherwise it
// returns a connection that replays that byte, for the caller to read the
// PRELOGIN message from. The caller's deadlines on c bound the handshake.
// Errors: the read or handshake error; ErrCannotEncrypt for a TLS client
// when the setting is NotSupported.
func (s *Server) Begin(c net.Conn) (conn net.Conn, strict bool, err error) {
	var first [1]byte
	if _, err := io.ReadFull(c, first[:]); err != nil {
		return nil, false, err
	}
	pc := &prefixConn{Conn: c, prefix: first[:]}
	if first[0] != recordTypeHandshake {
		return pc, false, nil
	}
	if s.Setting == NotSupported || s.Config == nil {
		return nil, false, ErrCannotEncrypt
	}
	tc := tls.Server(pc, strictConfig(s.Config))
	if err := tc.Handshake(); err != nil {
		return nil, false, fmt.Errorf("tdstls: TDS 8.0 TLS handshake: %w", err)
	}
	return tc, true, nil
}

// Answer reads the client's PRELOGIN and returns the ENCRYPTION value for
// the server's PRELOGIN answer and the outcome, per Negotiate (strict as
// Begin reported). The caller writes its PRELOGIN answer with that value,
// then calls Upgrade with the outcome. Errors as Negotiate: on an error
// the caller closes the connection with a log line and answers nothing.
func (s *Server) Answer(client *tds.Prelogin, strict bool) (answer byte, o Outcome, err error) {
	setting := s.Setting
	if s.Config == nil {
		setting = NotSupported
	}
	return Negotiate(preloginValue(client), setting, strict)
}

// Upgrade returns the connection for the rest of the session, after the
// PRELOGIN answer was written on c: c itself for Plain and StrictTLS; for
// Full, a TLS connection whose handshake ran in PRELOGIN packets; for
// LoginOnly, a connection that reads the client's next message (LOGIN7)
// through TLS and everything after it, and all it writes, in clear. The
// caller's deadlines on c bound the handshake. Errors: ErrNoConfig, the
// handshake's error, ErrBadPacket for a non-PRELOGIN packet during it.
func (s *Server) Upgrade(c net.Conn, o Outcome) (net.Conn, error) {
	return upgrade(c, o, s.Config, true)
}

package postgres

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/connbuf"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// startupTimeout bounds the startup and authentication of one connection,
// like PostgreSQL's authentication_timeout.
const startupTimeout = 60 * time.Second

// Startup packet codes (the first four bytes of an untyped startup packet).
const (
	codeSSLRequest    = 80877103
	codeGSSENCRequest = 80877104
	codeCancelRequest = 80877102
)

// startup negotiates TLS and reads the StartupMessage, then connects to the
// upstream and forwards it. It returns nil, nil for a CancelRequest (handled
// here). Authentication is relayed afterwards by the session.
func (p *Protocol) startup(conn net.Conn, l *app.Listener, certs *tlsconf.CertLoader, log *slog.Logger) (*session, error) {
	set := l.Settings()
	conn.SetDeadline(time.Now().Add(startupTimeout))
	cfg, err := certs.Offered(set.TLS, "postgresql") // ALPN of direct TLS (PostgreSQL 17 sslnegotiation=direct)
	if err != nil {
		// Never answer 'N' to an SSLRequest when tls is configured: a client
		// with sslmode=prefer would go on in plaintext without a word.
		log.Error("postgres listener: the TLS certificate does not load; connection refused", "error", err)
		writeFatal(conn, CodeConfigFile, fmt.Sprintf("hoop sidecar: listener %s cannot offer TLS: its certificate does not load (see the Sidecar's log)", set.Name))
		return nil, err
	}
	cr := connbuf.NewReader(conn)
	secure := false
	for {
		if !secure {
			first, err := cr.Peek(1)
			if err != nil {
				return nil, err
			}
			if first[0] == 0x16 { // a TLS ClientHello: direct TLS (sslnegotiation=direct)
				if cfg == nil {
					return nil, fmt.Errorf("client started TLS directly but the listener has no certificate")
				}
				if conn, cr, err = startTLS(conn, cr, cfg); err != nil {
					return nil, err
				}
				secure = true
				continue
			}
		}
		pkt, err := readStartup(cr)
		if err != nil {
			return nil, err
		}
		switch code := binary.BigEndian.Uint32(pkt); code {
		case codeSSLRequest:
			if secure || cfg == nil {
				if _, err := conn.Write([]byte{'N'}); err != nil {
					return nil, err
				}
				continue
			}
			if _, err := conn.Write([]byte{'S'}); err != nil {
				return nil, err
			}
			if cr.Buffered() > 0 { // bytes sent before the handshake must not be trusted
				return nil, protoErr("client sent data after SSLRequest before the TLS handshake")
			}
			if conn, cr, err = startTLS(conn, cr, cfg); err != nil {
				return nil, err
			}
			secure = true
		case codeGSSENCRequest:
			if _, err := conn.Write([]byte{'N'}); err != nil {
				return nil, err
			}
		case codeCancelRequest:
			var req pgproto3.CancelRequest
			if err := req.Decode(pkt); err != nil {
				return nil, protoErr("malformed CancelRequest: %v", err)
			}
			p.cancel(&req, log)
			return nil, nil
		case pgproto3.ProtocolVersion30, pgproto3.ProtocolVersion32:
			var sm pgproto3.StartupMessage
			if err := sm.Decode(pkt); err != nil {
				writeFatal(conn, CodeProtocol, "invalid startup packet: "+err.Error())
				return nil, protoErr("invalid startup packet: %v", err)
			}
			var own []byte
			if secure {
				own = cfg.Certificates[0].Certificate[0]
			}
			return p.connect(conn, cr, l, &sm, own, log)
		default:
			msg := fmt.Sprintf("unsupported frontend protocol %d.%d: the Sidecar speaks 3.0 and 3.2", code>>16, code&0xffff)
			writeFatal(conn, CodeProtocol, msg)
			return nil, protoErr("%s", msg)
		}
	}
}

func startTLS(conn net.Conn, cr *connbuf.Reader, cfg *tls.Config) (net.Conn, *connbuf.Reader, error) {
	tc := tls.Server(&prefixConn{Conn: conn, r: cr}, cfg)
	if err := tc.Handshake(); err != nil {
		return nil, nil, fmt.Errorf("TLS handshake with client: %w", err)
	}
	return tc, connbuf.NewReader(tc), nil
}

// prefixConn reads through the connbuf.Reader that may already hold the
// ClientHello (direct TLS), and writes to the connection.
type prefixConn struct {
	net.Conn
	r *connbuf.Reader
}

func (c *prefixConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// connect opens the upstream connection, forwards the StartupMessage and
// returns the session that relays authentication and then statements.
// clientCert is the listener certificate the client's TLS ended on (nil
// without TLS).
func (p *Protocol) connect(conn net.Conn, cr *connbuf.Reader, l *app.Listener, sm *pgproto3.StartupMessage, clientCert []byte, log *slog.Logger) (*session, error) {
	set := l.Settings()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	up, err := dialUpstream(ctx, set.Upstream, set.UpstreamTLS)
	if err != nil {
		log.Error("postgres listener: cannot reach the upstream", "upstream", set.Upstream, "error", err)
		writeFatal(conn, CodeUpstream, fmt.Sprintf("hoop sidecar: cannot reach the upstream of listener %s: %v", set.Name, err))
		return nil, err
	}
	user := sm.Parameters["user"]
	s := newSession(p, l, log.With("user", user), conn, cr, up)
	s.user = user
	s.database = sm.Parameters["database"]
	if s.database == "" {
		s.database = user
	}
	s.upstreamAddr, s.upstreamTLS = set.Upstream, set.UpstreamTLS
	s.clientTLS = clientCert != nil
	if tc, ok := up.(*tls.Conn); ok {
		s.upstreamIsTLS = true
		// Channel binding (tls-server-end-point) survives only when the client
		// sees the upstream's own certificate.
		if certs := tc.ConnectionState().PeerCertificates; len(certs) > 0 && clientCert != nil {
			s.keepChannelBinding = bytes.Equal(certs[0].Raw, clientCert)
		}
	}
	s.returnMode.Store(domain.WantsReturnMode(sm.Parameters["application_name"]))
	s.push(&expect{kind: expStartup, unit: &unit{}})
	if _, err := s.uw.Write(encode(sm)); err != nil {
		up.Close()
		return nil, err
	}
	if err := s.uw.Flush(); err != nil {
		up.Close()
		return nil, err
	}
	return s, nil
}

// writeFatal sends a FATAL ErrorResponse on a connection that is about to close.
func writeFatal(conn net.Conn, code, msg string) {
	conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	conn.Write(encode(fatal(code, msg)))
}

// cancel routes a CancelRequest: it ends a statement the session holds in
// wait mode and forwards the request to the session's upstream backend.
// Unknown keys are ignored, as PostgreSQL does.
func (p *Protocol) cancel(req *pgproto3.CancelRequest, log *slog.Logger) {
	s := p.cancels.lookup(cancelKey(req.ProcessID, req.SecretKey))
	if s == nil {
		log.Debug("postgres CancelRequest for an unknown backend; ignored", "pid", req.ProcessID)
		return
	}
	s.wait.Interrupt(app.ErrStatementCanceled)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	up, err := dialUpstream(ctx, s.upstreamAddr, s.upstreamTLS)
	if err != nil {
		log.Warn("postgres CancelRequest: cannot reach the upstream", "error", err)
		return
	}
	defer up.Close()
	up.SetDeadline(time.Now().Add(10 * time.Second))
	up.Write(encode(req))
	var b [1]byte
	up.Read(b[:]) // the server closes the connection once it has read the request
}

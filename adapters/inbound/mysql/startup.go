package mysql

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// maxLoginPacket bounds every packet before login (handshake response,
// auth data): 64 KiB, far more than any auth plugin sends.
const maxLoginPacket = 64 << 10

// loginTimeout bounds the whole login, so a silent client cannot hold an
// upstream connection.
const loginTimeout = 30 * time.Second

// errLoginRefused is a login the upstream refused; its ERR reached the client.
var errLoginRefused = errors.New("the upstream refused the login")

// startup logs a client in, as itself, on a new upstream connection:
//
//  1. connect to the upstream and read its HandshakeV10;
//  2. send the client a HandshakeV10 with the upstream's thread id, nonce
//     and auth plugin (so the client's scramble is valid for the upstream
//     and KILL QUERY ids mean the upstream's threads), and the capability
//     flags the listener relays (CLIENT_SSL when the listener has `tls:`);
//  3. read the client's SSLRequest (then TLS) and HandshakeResponse41;
//  4. send the upstream an SSLRequest when `upstream_tls:` is on, then the
//     client's response with the agreed flags;
//  5. relay the auth exchange (auth.go) until the upstream's OK or ERR.
//
// The Sidecar never holds a database password. It returns nil, nil when the
// upstream refused the login (its ERR was relayed).
func (p *Protocol) startup(conn net.Conn, l *app.Listener, certs *tlsconf.CertLoader, log *slog.Logger) (*session, error) {
	set := l.Settings()
	conn.SetDeadline(time.Now().Add(loginTimeout))
	ctx, cancel := context.WithTimeout(context.Background(), loginTimeout)
	defer cancel()
	d := net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	up, err := d.DialContext(ctx, "tcp", set.Upstream)
	if err != nil {
		wire.Write(conn, 0, errUnavailable.With("hoop sidecar: cannot reach the upstream database").Encode())
		return nil, fmt.Errorf("dial upstream %s: %w", set.Upstream, err)
	}
	s := newSession(p, l, log, conn, up)
	s.upstreamAddr = set.Upstream
	ok := false
	defer func() {
		if !ok {
			up.Close()
		}
	}()
	up.SetDeadline(time.Now().Add(loginTimeout))
	hp, _, err := wire.Read(s.ur, maxLoginPacket)
	if err != nil {
		return nil, fmt.Errorf("upstream handshake: %w", err)
	}
	if len(hp) > 0 && hp[0] == 0xff { // e.g. too many connections: the client gets the server's own ERR
		wire.Write(conn, 0, hp)
		return nil, nil
	}
	hello, err := wire.ParseHandshakeV10(hp)
	if err != nil {
		return nil, err
	}
	tlsCfg, err := certs.Offered(set.TLS)
	if err != nil {
		wire.Write(conn, 0, errUnavailable.With("hoop sidecar: the listener's TLS certificate cannot be loaded").Encode())
		return nil, err
	}
	offer := hello.Caps & relayedCaps
	if tlsCfg != nil {
		offer |= gm.CLIENT_SSL
	}
	if _, err := wire.Write(s.cw, 0, hello.Encode(offer)); err != nil {
		return nil, err
	}
	if err := s.cw.Flush(); err != nil {
		return nil, err
	}
	cp, cseq, err := wire.Read(s.cr, maxLoginPacket)
	if err != nil {
		return nil, err
	}
	if len(cp) == wire.SSLRequestLen && tlsCfg != nil && leUint32(cp)&gm.CLIENT_SSL != 0 {
		tc, r, err := upgradeClient(conn, s.cr, tlsCfg)
		if err != nil {
			return nil, fmt.Errorf("client TLS handshake: %w", err)
		}
		s.setClient(tc, r)
		s.clientTLS = true
		if cp, cseq, err = wire.Read(s.cr, maxLoginPacket); err != nil {
			return nil, err
		}
	}
	ch, err := wire.ParseHandshakeResponse41(cp)
	if len(cp) == wire.SSLRequestLen && leUint32(cp)&gm.CLIENT_SSL != 0 {
		err = wire.Errorf("the client asked for TLS, and this listener has no tls certificate")
	}
	if err != nil {
		wire.Write(s.cw, cseq+1, errMalformed.With("hoop sidecar: "+err.Error()).Encode())
		s.cw.Flush()
		return nil, answered{err}
	}
	s.caps = ch.Caps & offer &^ gm.CLIENT_SSL
	s.user, s.database = ch.User, ch.Database
	s.reading = handshakeReading(ch.Charset)
	s.returnMode = domain.WantsReturnMode(ch.Attributes["program_name"])
	s.threadID, s.nonce = hello.ThreadID, hello.Nonce
	upSeq := byte(1)
	if set.UpstreamTLS.Enabled {
		if hello.Caps&gm.CLIENT_SSL == 0 {
			wire.Write(s.cw, cseq+1, errUnavailable.With("hoop sidecar: the upstream does not offer TLS and the listener requires it (upstream_tls)").Encode())
			s.cw.Flush()
			return nil, fmt.Errorf("upstream %s offers no TLS", set.Upstream)
		}
		tc, err := upgradeUpstream(ctx, up, s.ur, set.Upstream, set.UpstreamTLS,
			wire.SSLRequest(s.caps, ch.MaxPacket, ch.Charset), upSeq)
		if err != nil {
			wire.Write(s.cw, cseq+1, errUnavailable.With("hoop sidecar: TLS to the upstream failed").Encode())
			s.cw.Flush()
			return nil, err
		}
		s.setUpstream(tc)
		s.upstreamTLS = true
		upSeq++
	}
	upCaps := s.caps
	if s.upstreamTLS {
		upCaps |= gm.CLIENT_SSL
	}
	if _, err := wire.Write(s.uw, upSeq, ch.Encode(upCaps)); err != nil {
		return nil, err
	}
	a := &authExchange{s: s, cseq: cseq + 1, useq: upSeq + 1, nonce: hello.Nonce, plugin: ch.Plugin}
	if hello.Plugin != "" && ch.Plugin == "" {
		a.plugin = hello.Plugin
	}
	status, err := a.run()
	if errors.Is(err, errLoginRefused) {
		log.Info("mysql login refused by the upstream", "user", ch.User)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s.status = status
	if err := s.refreshReading(); err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	s.client.SetDeadline(time.Time{})
	s.up.SetDeadline(time.Time{})
	ok = true
	return s, nil
}

func leUint32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// setClient replaces the client connection (after TLS).
func (s *session) setClient(c net.Conn, r *bufio.Reader) {
	s.client, s.cr, s.cw = c, r, bufio.NewWriterSize(c, 32<<10)
	s.clientAddr = c.RemoteAddr().String()
}

// setUpstream replaces the upstream connection (after TLS).
func (s *session) setUpstream(c net.Conn) {
	s.up, s.ur, s.uw = c, bufio.NewReaderSize(c, 32<<10), bufio.NewWriterSize(c, 32<<10)
}

// answered is a login error the client already got its ERR for.
type answered struct{ error }

func (a answered) Unwrap() error { return a.error }

package mssql

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstls"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// maxLoginMessage bounds PRELOGIN and LOGIN7 (and the upstream's answers
// to them): 128 KiB, more than any login carries.
const maxLoginMessage = 128 << 10

// loginTimeout bounds the whole login, so a silent client cannot hold an
// upstream connection.
const loginTimeout = 30 * time.Second

// startup logs a client in, as itself, on a new upstream connection
// (MS-TDS 3.2.5.1, 3.3.5.1):
//
//  1. read the client's PRELOGIN (after TLS, for a TDS 8.0 strict client)
//     and negotiate the client leg's encryption (tls.go, tdstls.Server);
//  2. connect to the upstream, send it the client's PRELOGIN options with
//     the upstream leg's encryption request and MARS off, read its answer
//     and run the TLS they agreed on (tdstls.Client);
//  3. answer the client with the upstream's PRELOGIN, its ENCRYPTION and
//     MARS replaced, and run the client leg's TLS;
//  4. read the client's LOGIN7: user, app name, database, packet size;
//     refuse Windows/Kerberos (SSPI, integrated security) and Entra
//     (FedAuth) logins, Always Encrypted (COLUMNENCRYPTION: tokens the
//     relay does not read), clients older than TDS 7.2, and any login when
//     the upstream could not be used (step 2), each with an ERROR;
//  5. send the upstream the client's LOGIN7 as it came (its credentials,
//     packet size and option flags: the Sidecar holds no password) and
//     relay the answer: LOGINACK, ENVCHANGE (database, packet size), INFO,
//     or the upstream's ERROR.
//
// It returns nil, nil when the login was refused and the client told.
func (p *Protocol) startup(conn net.Conn, l *app.Listener, certs *tlsconf.CertLoader, log *slog.Logger) (*session, error) {
	set := l.Settings()
	conn.SetDeadline(time.Now().Add(loginTimeout))
	srv, err := p.clientTLS(set.TLS, certs)
	if err != nil {
		log.Error("mssql listener: its TLS certificate cannot be loaded", "error", err)
		return nil, refuseLogin(conn, log, errConnect, "the listener's TLS certificate cannot be loaded")
	}
	// Begin reads one byte: a TLS ClientHello is a TDS 8.0 strict client.
	cc, strict, err := srv.Begin(conn)
	if err != nil {
		return nil, fmt.Errorf("client TLS (TDS 8.0): %w", err)
	}
	// PRELOGIN is read without read-ahead: the TLS handshake that may
	// follow it is read by tdstls.
	mr := &tds.MessageReader{R: cc, PacketSize: tds.MaxPacketSize, MaxMessage: maxLoginMessage}
	m, err := mr.ReadMessage()
	if err != nil {
		return nil, loginReadErr(err)
	}
	if m.Type != tds.PacketPrelogin {
		return nil, refuseLogin(cc, log, errProtocol, fmt.Sprintf("expected PRELOGIN, got a message of type %d (clients older than TDS 7.2 are not served)", m.Type))
	}
	pre, err := tds.DecodePrelogin(m.Data)
	if err != nil {
		return nil, refuseLogin(cc, log, errProtocol, "PRELOGIN: "+err.Error())
	}
	answer, outcome, err := srv.Answer(pre, strict)
	if err != nil { // never ENCRYPT_NOT_SUP to a client that asked for encryption
		log.Warn("mssql client refused: its encryption request cannot be met; connection closed", "error", err)
		return nil, nil
	}
	cl, err := upstreamTLS(set.UpstreamTLS, set.Upstream)
	if err != nil {
		log.Error("mssql listener: its upstream_tls cannot be loaded", "error", err)
		return nil, refuseLogin(cc, log, errConnect, "the listener's upstream_tls configuration cannot be loaded")
	}

	// The upstream's PRELOGIN answer (its version) is the client's; when
	// the upstream cannot be used, the client still gets a PRELOGIN answer
	// and its LOGIN7 is answered with the reason (a login error it shows).
	up, uc, upAns, upErr := dialUpstream(set.Upstream, cl, pre)
	ok := false
	defer func() {
		if !ok && up != nil {
			up.Close()
		}
	}()
	if upErr != nil {
		log.Info("mssql upstream unusable", "upstream", set.Upstream, "error", upErr)
		upAns = &tds.Prelogin{}
		upAns.Set(tds.PreloginVersion, tds.VersionData(0x10000000, 0))
	}
	upAns.Set(tds.PreloginEncryption, []byte{answer})
	upAns.Set(tds.PreloginMARS, []byte{0})
	if err := tds.WriteMessage(cc, tds.PacketReply, 0, 0, upAns.Encode(), tds.DefaultPacketSize); err != nil {
		return nil, err
	}
	if cc, err = srv.Upgrade(cc, outcome); err != nil {
		if isClosed(err) { // a client refusing the certificate just hangs up: say so once
			log.Info("mssql client closed the connection during the TLS handshake: it may not trust the listener's certificate "+
				"(a tls certificate it can verify, or TrustServerCertificate=true on the client)", "client_encryption", outcome.String())
		}
		return nil, fmt.Errorf("client TLS: %w", err)
	}
	log = log.With("client_encryption", outcome.String())
	cr := bufio.NewReaderSize(cc, 32<<10)
	mr = &tds.MessageReader{R: cr, PacketSize: tds.MaxPacketSize, MaxMessage: maxLoginMessage}
	m, err = mr.ReadMessage()
	if err != nil {
		return nil, loginReadErr(err)
	}
	if m.Type != tds.PacketLogin7 {
		return nil, refuseLogin(cc, log, errProtocol, fmt.Sprintf("expected LOGIN7, got a message of type %d", m.Type))
	}
	login, err := tds.DecodeLogin7(m.Data)
	if err != nil {
		return nil, refuseLogin(cc, log, errProtocol, "LOGIN7: "+err.Error())
	}
	if why := unsupportedLogin(login); why != "" {
		return nil, refuseLogin(cc, log.With("user", login.UserName), errLogin, "Login failed. hoop sidecar: "+why)
	}
	if upErr != nil {
		return nil, refuseLogin(cc, log, errConnect, "cannot log in to the upstream database: "+upErr.Error())
	}
	if err := tds.WriteMessage(uc, tds.PacketLogin7, m.Status, 0, m.Data, tds.DefaultPacketSize); err != nil {
		return nil, err
	}
	ur := bufio.NewReaderSize(uc, 32<<10)
	conn = cc
	up = uc
	s := newSession(p, l, log, conn, cr, up, ur)
	s.user = login.UserName
	s.returnMode = domain.WantsReturnMode(login.AppName)
	if login.PacketSize >= tds.MinPacketSize && login.PacketSize <= tds.MaxPacketSize {
		s.packetSize.Store(int32(login.PacketSize))
	}
	accepted, err := s.loginAnswer(log)
	if err != nil || !accepted {
		return nil, err
	}
	s.loginDB = s.database
	conn.SetDeadline(time.Time{})
	up.SetDeadline(time.Time{})
	ok = true
	return s, nil
}

// dialUpstream connects to the upstream and runs the PRELOGIN exchange and
// its TLS (upstreamPrelogin). It returns the socket (to close on failure),
// the connection for the session, and the upstream's PRELOGIN answer.
func dialUpstream(addr string, cl *tdstls.Client, pre *tds.Prelogin) (net.Conn, net.Conn, *tds.Prelogin, error) {
	ctx, cancel := context.WithTimeout(context.Background(), loginTimeout)
	defer cancel()
	d := net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	up, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			err = oe.Err // "connect: connection refused", not the address again
		}
		return nil, nil, nil, fmt.Errorf("cannot reach %s: %w", addr, err)
	}
	up.SetDeadline(time.Now().Add(loginTimeout))
	uc, ans, err := upstreamPrelogin(up, cl, pre)
	if err != nil {
		return up, nil, nil, err
	}
	return up, uc, ans, nil
}

// upstreamPrelogin sends the upstream the client's PRELOGIN options, with
// the ENCRYPTION the upstream leg asks for (cl) and MARS off, reads its
// answer and runs the TLS the two agreed on (tdstls.Client). It returns
// the connection for the rest of the session and the upstream's answer.
// Errors: the exchange's, tdstls.ErrServerCannotEncrypt (never a
// downgrade of what upstream_tls asks).
func upstreamPrelogin(up net.Conn, cl *tdstls.Client, client *tds.Prelogin) (net.Conn, *tds.Prelogin, error) {
	c, err := cl.Begin(up)
	if err != nil {
		return nil, nil, err
	}
	pre := &tds.Prelogin{Options: append([]tds.PreloginOption(nil), client.Options...)}
	pre.Set(tds.PreloginEncryption, []byte{cl.Request()})
	pre.Set(tds.PreloginMARS, []byte{0})
	if err := tds.WriteMessage(c, tds.PacketPrelogin, 0, 0, pre.Encode(), tds.DefaultPacketSize); err != nil {
		return nil, nil, err
	}
	m, err := (&tds.MessageReader{R: c, PacketSize: 65535, MaxMessage: maxLoginMessage}).ReadMessage()
	if errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("it closed the connection after PRELOGIN (ENCRYPTION %s): it may not offer the encryption asked for", cl.Setting)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("PRELOGIN answer: %w", err)
	}
	if m.Type != tds.PacketReply {
		return nil, nil, fmt.Errorf("PRELOGIN answered with a message of type %d", m.Type)
	}
	ans, err := tds.DecodePrelogin(m.Data)
	if err != nil {
		return nil, nil, fmt.Errorf("PRELOGIN answer: %w", err)
	}
	o, err := cl.Outcome(ans)
	if err != nil {
		return nil, nil, err
	}
	if c, err = cl.Upgrade(c, o); err != nil {
		return nil, nil, err
	}
	return c, ans, nil
}

// loginAnswer relays the upstream's answer to LOGIN7 (one message, read
// whole) and records the session's database and packet size from its
// ENVCHANGE tokens. It reports whether the upstream accepted the login
// (LOGINACK). A routing ENVCHANGE (Azure SQL gateway redirect) is refused:
// the client would connect to the server it names directly, around the
// Sidecar.
func (s *session) loginAnswer(log *slog.Logger) (bool, error) {
	var raw []byte
	var data []byte
	var buf []byte
	for {
		h, body, err := readPacket(s.ur, buf, 65535)
		if err != nil {
			refuseLogin(s.client, log, errConnect, "the upstream ended the login")
			return false, fmt.Errorf("upstream login answer: %w", err)
		}
		buf = body[:0]
		s.spid = h.SPID // the upstream session's id: the listener's own replies carry it too
		raw = h.Append(raw)
		raw = append(raw, body...)
		data = append(data, body...)
		if len(data) > maxLoginMessage {
			return false, refuseLogin(s.client, log, errConnect, "the upstream's login answer is too long")
		}
		if h.Status&tds.StatusEOM != 0 {
			break
		}
	}
	var sc tds.Scanner
	acked := false
	var refusal *tds.ErrorInfo // the upstream's first ERROR, for the log
	for b := data; len(b) > 0; {
		t, err := sc.Next(b)
		if err != nil {
			return false, refuseLogin(s.client, log, errConnect, "the upstream's login answer is malformed: "+err.Error())
		}
		b = b[len(t.Raw):]
		switch t.Type {
		case tds.TokenLoginAck:
			acked = true
		case tds.TokenError:
			if refusal == nil {
				refusal, _ = tds.DecodeErrorInfo(t.Body)
			}
		case tds.TokenEnvChange:
			e, err := tds.DecodeEnvChange(t.Body)
			if err != nil {
				continue
			}
			if e.Type == tds.EnvRouting {
				return false, refuseLogin(s.client, log, errConnect, "the upstream redirected the login to another server (Azure SQL routing); point the listener's upstream at the server it names")
			}
			s.envChange(e)
		}
	}
	if _, err := s.client.Write(raw); err != nil {
		return false, err
	}
	if !acked {
		if refusal != nil {
			log = log.With("error", refusal.Number, "state", refusal.State, "message", refusal.Message)
		}
		log.Info("mssql login refused by the upstream", "user", s.user)
		return false, nil
	}
	s.features = sc.Features // DATACLASSIFICATION's version: the relay frames its tokens with it
	log.Debug("mssql login", "user", s.user, "database", s.database, "packet_size", strconv.Itoa(int(s.packetSize.Load())))
	return true, nil
}

// unsupportedLogin says why a LOGIN7 cannot be relayed, or "".
func unsupportedLogin(l *tds.Login7) string {
	switch {
	case l.OptionFlags2&tds.Flag2IntSecurity != 0 || len(l.SSPI) > 0:
		return "Windows authentication (SSPI, NTLM or Kerberos) is not supported through the Sidecar; log in with a SQL Server login (user and password)"
	case hasFeature(l, tds.FeatureFedAuth):
		return "Microsoft Entra (Azure AD) authentication is not supported through the Sidecar; log in with a SQL Server login (user and password)"
	case hasFeature(l, tds.FeatureColumnEncryption):
		// Its COLMETADATA carries a CekTable and cipher metadata the relay
		// does not read (and its parameters are refused: rpc.go).
		return "Always Encrypted (column encryption) is not supported through the Sidecar; connect without it (Column Encryption Setting=Disabled; go-mssqldb: no columnencryption=true)"
	case l.TDSVersion < tds.Version72 && l.TDSVersion != tds.Version80:
		return fmt.Sprintf("TDS version 0x%08X is older than 7.2, which the Sidecar needs", l.TDSVersion)
	}
	return ""
}

func hasFeature(l *tds.Login7, id byte) bool {
	_, ok := l.Feature(id)
	return ok
}

// refuseLogin answers the client's login with ERROR e (msg) and DONE, logs
// it, and returns nil: the connection then closes.
func refuseLogin(conn net.Conn, log *slog.Logger, e sqlError, msg string) error {
	if e.Msg == "" {
		if !strings.HasPrefix(msg, "Login failed") && !strings.HasPrefix(msg, "hoop sidecar:") {
			msg = "hoop sidecar: " + msg
		}
		e = e.with(msg)
	}
	log.Info("mssql login refused", "reason", msg)
	writeLoginError(conn, e)
	return nil
}

// writeLoginError answers a client during login with ERROR e and DONE.
func writeLoginError(conn net.Conn, e sqlError) {
	conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	tds.WriteMessage(conn, tds.PacketReply, 0, 0, errorReply(e, tds.TokenDone, false), tds.DefaultPacketSize)
}

// loginReadErr classifies an error reading the client during login.
func loginReadErr(err error) error {
	if errors.Is(err, tds.ErrTooLarge) {
		return protoErr("login message larger than %d bytes", maxLoginMessage)
	}
	if err != nil && !isClosed(err) && !errors.Is(err, context.DeadlineExceeded) {
		return protoErr("%v", err)
	}
	return err
}

package mssql

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/tds"
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
//  1. read the client's PRELOGIN and decide the client leg's encryption
//     (tls.go);
//  2. connect to the upstream, send it the client's PRELOGIN (encryption
//     per upstream_tls, MARS off) and read its answer;
//  3. answer the client with the upstream's PRELOGIN, its ENCRYPTION and
//     MARS replaced;
//  4. read the client's LOGIN7: user, app name, database, packet size;
//     refuse Windows/Kerberos (SSPI, integrated security) and Entra
//     (FedAuth) logins and clients older than TDS 7.2;
//  5. send the upstream the client's LOGIN7 as it came (its credentials,
//     packet size and option flags: the Sidecar holds no password) and
//     relay the answer: LOGINACK, ENVCHANGE (database, packet size), INFO,
//     or the upstream's ERROR.
//
// It returns nil, nil when the login was refused and the client told.
func (p *Protocol) startup(conn net.Conn, l *app.Listener, certs *tlsconf.CertLoader, log *slog.Logger) (*session, error) {
	set := l.Settings()
	conn.SetDeadline(time.Now().Add(loginTimeout))
	cr := bufio.NewReaderSize(conn, 32<<10)
	if b, err := cr.Peek(1); err == nil && b[0] == 0x16 {
		// A TLS ClientHello: TDS 8.0 strict encryption.
		log.Warn("mssql client refused: it uses TDS 8.0 strict encryption, which this listener does not provide yet")
		return nil, nil
	}
	mr := &tds.MessageReader{R: cr, PacketSize: tds.MaxPacketSize, MaxMessage: maxLoginMessage}
	m, err := mr.ReadMessage()
	if err != nil {
		return nil, loginReadErr(err)
	}
	if m.Type != tds.PacketPrelogin {
		return nil, refuseLogin(conn, log, errProtocol, fmt.Sprintf("expected PRELOGIN, got a message of type %d (clients older than TDS 7.2 are not served)", m.Type))
	}
	pre, err := tds.DecodePrelogin(m.Data)
	if err != nil {
		return nil, refuseLogin(conn, log, errProtocol, "PRELOGIN: "+err.Error())
	}
	enc, sent := pre.Encryption()
	answer, err := clientEncryption(enc, sent, set.TLS, certs)
	if err != nil {
		return nil, refuseLogin(conn, log, errConnect, err.Error()+"; connect with encryption disabled (go-mssqldb encrypt=disable), or use a listener with tls")
	}
	upEnc, err := upstreamEncryption(set.UpstreamTLS)
	if err != nil {
		return nil, refuseLogin(conn, log, errConnect, err.Error())
	}

	ctx, cancel := context.WithTimeout(context.Background(), loginTimeout)
	defer cancel()
	d := net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	up, err := d.DialContext(ctx, "tcp", set.Upstream)
	if err != nil {
		refuseLogin(conn, log, errConnect, "cannot reach the upstream database")
		return nil, fmt.Errorf("dial upstream %s: %w", set.Upstream, err)
	}
	ok := false
	defer func() {
		if !ok {
			up.Close()
		}
	}()
	up.SetDeadline(time.Now().Add(loginTimeout))
	ur := bufio.NewReaderSize(up, 32<<10)

	upPre := &tds.Prelogin{Options: append([]tds.PreloginOption(nil), pre.Options...)}
	upPre.Set(tds.PreloginEncryption, []byte{upEnc})
	upPre.Set(tds.PreloginMARS, []byte{0})
	if err := tds.WriteMessage(up, tds.PacketPrelogin, 0, 0, upPre.Encode(), tds.DefaultPacketSize); err != nil {
		return nil, err
	}
	umr := &tds.MessageReader{R: ur, PacketSize: 65535, MaxMessage: maxLoginMessage}
	um, err := umr.ReadMessage()
	if err != nil {
		refuseLogin(conn, log, errConnect, "the upstream did not answer PRELOGIN")
		return nil, fmt.Errorf("upstream PRELOGIN: %w", err)
	}
	upAns, err := tds.DecodePrelogin(um.Data)
	if err != nil {
		return nil, refuseLogin(conn, log, errConnect, "the upstream's PRELOGIN answer is malformed: "+err.Error())
	}
	if e, _ := upAns.Encryption(); e == tds.EncryptReq || e == tds.EncryptOn {
		return nil, refuseLogin(conn, log, errConnect, "the upstream requires encryption, which this listener does not provide yet (upstream_tls)")
	}
	upAns.Set(tds.PreloginEncryption, []byte{answer})
	upAns.Set(tds.PreloginMARS, []byte{0})
	if err := tds.WriteMessage(conn, tds.PacketReply, 0, 0, upAns.Encode(), tds.DefaultPacketSize); err != nil {
		return nil, err
	}

	m, err = mr.ReadMessage()
	if err != nil {
		return nil, loginReadErr(err)
	}
	if m.Type != tds.PacketLogin7 {
		return nil, refuseLogin(conn, log, errProtocol, fmt.Sprintf("expected LOGIN7, got a message of type %d", m.Type))
	}
	login, err := tds.DecodeLogin7(m.Data)
	if err != nil {
		return nil, refuseLogin(conn, log, errProtocol, "LOGIN7: "+err.Error())
	}
	if why := unsupportedLogin(login); why != "" {
		log.Info("mssql login refused", "user", login.UserName, "reason", why)
		return nil, refuseLogin(conn, log, errLogin, "Login failed. hoop sidecar: "+why)
	}
	if err := tds.WriteMessage(up, tds.PacketLogin7, m.Status, 0, m.Data, tds.DefaultPacketSize); err != nil {
		return nil, err
	}

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
	for b := data; len(b) > 0; {
		t, err := sc.Next(b)
		if err != nil {
			return false, refuseLogin(s.client, log, errConnect, "the upstream's login answer is malformed: "+err.Error())
		}
		b = b[len(t.Raw):]
		switch t.Type {
		case tds.TokenLoginAck:
			acked = true
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
		log.Info("mssql login refused by the upstream", "user", s.user)
		return false, nil
	}
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

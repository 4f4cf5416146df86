package mssql

import (
	"encoding/binary"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
	"github.com/hoophq/sidecar/ports"
)

// rawClient is a TDS client written with the codec, for what real drivers
// never send (malformed packets, integrated-security logins).
type rawClient struct {
	t    testing.TB
	conn net.Conn
	mr   *tds.MessageReader
}

// dialRaw connects and sends PRELOGIN (ENCRYPT_NOT_SUP), reading the answer.
func dialRaw(t testing.TB, addr string) *rawClient {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	c := &rawClient{t: t, conn: conn, mr: &tds.MessageReader{R: conn, PacketSize: 65535, MaxMessage: 1 << 20}}
	p := &tds.Prelogin{}
	p.Set(tds.PreloginVersion, tds.VersionData(0x0b000000, 0))
	p.Set(tds.PreloginEncryption, []byte{tds.EncryptNotSup})
	c.send(tds.PacketPrelogin, p.Encode())
	ans, err := tds.DecodePrelogin(c.read().Data)
	if err != nil {
		t.Fatal(err)
	}
	if enc, _ := ans.Encryption(); enc != tds.EncryptNotSup {
		t.Fatalf("PRELOGIN answer ENCRYPTION %d", enc)
	}
	return c
}

func (c *rawClient) send(typ byte, data []byte) {
	c.t.Helper()
	if err := tds.WriteMessage(c.conn, typ, 0, 0, data, tds.DefaultPacketSize); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawClient) read() tds.Message {
	c.t.Helper()
	m, err := c.mr.ReadMessage()
	if err != nil {
		c.t.Fatal(err)
	}
	return m
}

// login sends l and returns the answer's tokens.
func (c *rawClient) login(l *tds.Login7) []tds.Token {
	c.send(tds.PacketLogin7, l.Encode())
	return tokens(c.t, c.read().Data)
}

func agentLogin() *tds.Login7 {
	return &tds.Login7{TDSVersion: tds.Version74, PacketSize: 4096, UserName: "agent", Password: "pw", AppName: "raw", Database: "hoopdb"}
}

func tokens(t testing.TB, b []byte) []tds.Token {
	t.Helper()
	var sc tds.Scanner
	var out []tds.Token
	for len(b) > 0 {
		tok, err := sc.Next(b)
		if err != nil {
			t.Fatalf("reply tokens: %v", err)
		}
		out = append(out, tok)
		b = b[len(tok.Raw):]
	}
	return out
}

// firstError returns the first ERROR token of toks.
func firstError(t testing.TB, toks []tds.Token) *tds.ErrorInfo {
	t.Helper()
	for _, tok := range toks {
		if tok.Type == tds.TokenError {
			e, err := tds.DecodeErrorInfo(tok.Body)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
	}
	t.Fatal("no ERROR token in the reply")
	return nil
}

// A malformed packet after login closes that one connection with ERROR
// 4002; the listener goes on serving others.
func TestMalformedPacketClosesTheConnection(t *testing.T) {
	f := newFixture(t)
	c := dialRaw(t, f.addr)
	c.login(agentLogin())
	// A packet header whose length (4) is shorter than the header itself.
	c.conn.Write([]byte{tds.PacketSQLBatch, tds.StatusEOM, 0, 4, 0, 0, 1, 0})
	e := firstError(t, tokens(t, c.read().Data))
	if e.Number != 4002 || e.Class != 20 {
		t.Fatalf("malformed packet: ERROR %d class %d %q", e.Number, e.Class, e.Message)
	}
	if _, err := c.mr.ReadMessage(); err == nil {
		t.Fatal("the connection stayed open after a malformed packet")
	}
	// An RPC whose ALL_HEADERS length points past the message.
	c2 := dialRaw(t, f.addr)
	c2.login(agentLogin())
	c2.send(tds.PacketRPC, binary.LittleEndian.AppendUint32(nil, 1000))
	if e := firstError(t, tokens(t, c2.read().Data)); e.Number != 4002 {
		t.Fatalf("truncated RPC: ERROR %d %q", e.Number, e.Message)
	}
	var one int
	if err := f.conn("agent").QueryRowContext(t.Context(), "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("another connection after the malformed one: %v", err)
	}
}

// Windows (integrated security, SSPI) and Entra (FedAuth) logins are
// refused with ERROR 18456 before anything reaches the upstream.
func TestIntegratedAndEntraLoginsRefused(t *testing.T) {
	f := newFixture(t)
	for name, l := range map[string]*tds.Login7{
		"integrated": {TDSVersion: tds.Version74, PacketSize: 4096, OptionFlags2: tds.Flag2IntSecurity, SSPI: []byte("NTLMSSP\x00\x01")},
		"entra":      {TDSVersion: tds.Version74, PacketSize: 4096, Features: []tds.Feature{{ID: tds.FeatureFedAuth, Data: []byte{0x02}}}},
	} {
		c := dialRaw(t, f.addr)
		e := firstError(t, c.login(l))
		if e.Number != 18456 {
			t.Errorf("%s login: ERROR %d %q", name, e.Number, e.Message)
		}
	}
	if n := len(f.up.Logins()); n != 0 {
		t.Fatalf("the upstream received %d logins", n)
	}
}

// A login the listener refuses is logged once, with the user and the
// reason: one refusal, one line for the operator to find.
func TestRefusedLoginIsLoggedOnce(t *testing.T) {
	addr, buf := loggedListener(t, &tdstest.Server{Database: "hoopdb"})
	c := dialRaw(t, addr)
	firstError(t, c.login(&tds.Login7{TDSVersion: tds.Version74, PacketSize: 4096, UserName: "corp",
		OptionFlags2: tds.Flag2IntSecurity, SSPI: []byte("NTLMSSP\x00\x01")}))
	var lines []string // logged before the answer was written
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.Contains(line, "mssql login refused") {
			lines = append(lines, line)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("a refused Windows login logged %d lines, want 1:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if !strings.Contains(lines[0], "user=corp") || !strings.Contains(lines[0], "Windows authentication") {
		t.Fatalf("the line names neither the user nor the reason: %s", lines[0])
	}
}

// An upstream the listener cannot dial is answered 50000 state 125 with
// the dial's own error (refused, no such host, timeout), so the operator
// and the client's driver see why, as on the postgres listener.
func TestUnreachableUpstreamNamesTheCause(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing listens there now: the dial is refused
	s := app.ListenerSettings{Name: "unit-mssql", Protocol: "mssql", Mode: app.ModeWait, SpendOn: ports.SpendOnSent, Upstream: closed}
	addr := listenertest.Serve(t, New(nil), listenertest.NewCore(nil, app.Limits{}).Listener(s))
	e := firstError(t, dialRaw(t, addr).login(agentLogin()))
	if e.Number != 50000 || e.State != 125 {
		t.Fatalf("unreachable upstream: ERROR %d state %d %q", e.Number, e.State, e.Message)
	}
	if !strings.Contains(e.Message, closed) || !strings.Contains(e.Message, "refused") {
		t.Fatalf("the message names neither the upstream nor why it cannot be reached: %q", e.Message)
	}
}

// A login the upstream refuses is logged with the upstream's error, so the
// operator can tell a wrong password (18456) from a database that does not
// open (4060) without the client's output.
func TestUpstreamLoginRefusalIsLoggedWithItsError(t *testing.T) {
	addr, buf := loggedListener(t, &tdstest.Mini{Users: map[string]string{"agent": "right"}})
	if e := firstError(t, dialRaw(t, addr).login(agentLogin())); e.Number != 18456 {
		t.Fatalf("wrong password: ERROR %d %q", e.Number, e.Message)
	}
	line := ""
	for range 400 { // logged as the answer is relayed
		for _, l := range strings.Split(buf.String(), "\n") {
			if strings.Contains(l, "mssql login refused by the upstream") {
				line = l
			}
		}
		if line != "" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(line, "18456") || !strings.Contains(line, "Login failed for user") {
		t.Fatalf("the log line lacks the upstream's error: %q", line)
	}
}

// A client that asks for encryption is never answered ENCRYPT_NOT_SUP:
// ENCRYPT_OFF gets login-only TLS (OFF), ENCRYPT_ON/REQ full TLS (ON).
func TestEncryptionNeverDowngraded(t *testing.T) {
	f := newFixture(t)
	for enc, want := range map[byte]byte{tds.EncryptOff: tds.EncryptOff, tds.EncryptOn: tds.EncryptOn, tds.EncryptReq: tds.EncryptOn, tds.EncryptNotSup: tds.EncryptNotSup} {
		conn, _, ans := dialPrelogin(t, f.addr, enc)
		conn.Close()
		if got, _ := ans.Encryption(); got != want {
			t.Errorf("client ENCRYPTION %d answered %d, want %d", enc, got, want)
		}
	}
}

// A request larger than the held-payload budget is refused unread with
// ERROR 701, and the connection goes on.
func TestRequestOverTheHeldBudget(t *testing.T) {
	f := newFixture(t, withHeld(128<<10))
	c := f.conn(returnApp)
	big := "SELECT '" + strings.Repeat("x", 200<<10) + "'"
	_, err := c.ExecContext(t.Context(), big)
	sqlErr(t, err, 701)
	var one int
	if err := c.QueryRowContext(t.Context(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("after the refusal: %v", err)
	}
	if f.ranCount(big) != 0 {
		t.Fatal("the refused batch ran")
	}
}

// A stopped listener closes an idle connection with ERROR 6005.
func TestDrainClosesIdleConnections(t *testing.T) {
	f := newFixture(t)
	c := dialRaw(t, f.addr)
	c.login(agentLogin())
	f.l.EndDrain()
	m, err := c.mr.ReadMessage()
	if err != nil {
		t.Fatalf("no ERROR before the close: %v", err)
	}
	if e := firstError(t, tokens(t, m.Data)); e.Number != 6005 {
		t.Fatalf("drain: ERROR %d %q", e.Number, e.Message)
	}
}

// dialPrelogin connects to addr, sends a PRELOGIN asking for encryption
// enc and returns the connection, its reader and the listener's answer.
func dialPrelogin(t *testing.T, addr string, enc byte) (net.Conn, *tds.MessageReader, *tds.Prelogin) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	p := &tds.Prelogin{}
	p.Set(tds.PreloginVersion, tds.VersionData(0x0b000000, 0))
	p.Set(tds.PreloginEncryption, []byte{enc})
	tds.WriteMessage(conn, tds.PacketPrelogin, 0, 0, p.Encode(), 4096)
	mr := &tds.MessageReader{R: conn, MaxMessage: 1 << 20}
	m, err := mr.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	ans, err := tds.DecodePrelogin(m.Data)
	if err != nil {
		t.Fatal(err)
	}
	return conn, mr, ans
}

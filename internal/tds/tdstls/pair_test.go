package tdstls_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstls"
)

// recorder keeps every byte that crossed the socket, as an eavesdropper
// would see it.
type recorder struct {
	net.Conn
	mu   sync.Mutex
	wire bytes.Buffer
}

func (r *recorder) Read(b []byte) (int, error) {
	n, err := r.Conn.Read(b)
	r.mu.Lock()
	r.wire.Write(b[:n])
	r.mu.Unlock()
	return n, err
}

func (r *recorder) Write(b []byte) (int, error) {
	r.mu.Lock()
	r.wire.Write(b)
	r.mu.Unlock()
	return r.Conn.Write(b)
}

func (r *recorder) saw(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Contains(r.wire.Bytes(), []byte(s))
}

// serverSide is what a listener does with an accepted connection: Begin,
// read PRELOGIN, Answer, write the PRELOGIN answer, Upgrade.
func serverSide(c net.Conn, s *tdstls.Server) (net.Conn, tdstls.Outcome, error) {
	conn, strict, err := s.Begin(c)
	if err != nil {
		return nil, 0, err
	}
	p, err := readPrelogin(conn)
	if err != nil {
		return nil, 0, err
	}
	enc, o, err := s.Answer(p, strict)
	if err != nil {
		return nil, o, err
	}
	ans := &tds.Prelogin{}
	ans.Set(tds.PreloginVersion, tds.VersionData(0x10000FA0, 0))
	ans.Set(tds.PreloginEncryption, []byte{enc})
	if err := tds.WriteMessage(conn, tds.PacketReply, 0, 0, ans.Encode(), 0); err != nil {
		return nil, o, err
	}
	conn, err = s.Upgrade(conn, o)
	return conn, o, err
}

// clientSide is what the listener's upstream leg does: Begin, write
// PRELOGIN with Request, read the answer, Outcome, Upgrade.
func clientSide(c net.Conn, cl *tdstls.Client) (net.Conn, tdstls.Outcome, error) {
	conn, err := cl.Begin(c)
	if err != nil {
		return nil, 0, err
	}
	pre := &tds.Prelogin{}
	pre.Set(tds.PreloginVersion, tds.VersionData(0x01000000, 0))
	pre.Set(tds.PreloginEncryption, []byte{cl.Request()})
	if err := tds.WriteMessage(conn, tds.PacketPrelogin, 0, 0, pre.Encode(), 0); err != nil {
		return nil, 0, err
	}
	p, err := readPrelogin(conn)
	if err != nil {
		return nil, 0, err
	}
	o, err := cl.Outcome(p)
	if err != nil {
		return nil, o, err
	}
	conn, err = cl.Upgrade(conn, o)
	return conn, o, err
}

// readPrelogin reads one PRELOGIN message (a MessageReader reads exactly
// its packets, nothing of the handshake after it).
func readPrelogin(conn net.Conn) (*tds.Prelogin, error) {
	m, err := (&tds.MessageReader{R: conn}).ReadMessage()
	if err != nil {
		return nil, err
	}
	return tds.DecodePrelogin(m.Data)
}

func certConfigs(t *testing.T) (server, client *tls.Config) {
	t.Helper()
	cert, _, err := tdstls.SelfSigned("127.0.0.1", "tdstls.test")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return &tls.Config{Certificates: []tls.Certificate{cert}}, &tls.Config{RootCAs: pool, ServerName: "tdstls.test"}
}

type result struct {
	outcome tdstls.Outcome
	msgs    []tds.Message
	err     error
}

// session runs one connection: the client sends LOGIN7 and, without waiting,
// a SQLBatch (a pipelining client: login-only must not lose it inside TLS),
// the server reads both and answers once, the client reads the answer.
func session(t *testing.T, srv *tdstls.Server, cl *tdstls.Client) (server, client result, wire *recorder) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			server.err = err
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(20 * time.Second))
		wire = &recorder{Conn: c}
		conn, o, err := serverSide(wire, srv)
		server.outcome = o
		if err != nil {
			server.err = err
			return
		}
		// TLS 1.2 inside PRELOGIN packets, as SQL Server; TLS 1.3 when strict.
		st, ok := tdstls.ConnectionState(conn)
		if ok != (o != tdstls.Plain) || ok && (st.NegotiatedProtocol == tdstls.ALPN) != (o == tdstls.StrictTLS) ||
			ok && (st.Version == tls.VersionTLS13) != (o == tdstls.StrictTLS) {
			server.err = fmt.Errorf("TLS state %v %+v for %v", ok, st, o)
			return
		}
		mr := &tds.MessageReader{R: conn}
		for range 2 {
			m, err := mr.ReadMessage()
			if err != nil {
				server.err = err
				return
			}
			server.msgs = append(server.msgs, m)
		}
		server.err = tds.WriteMessage(conn, tds.PacketReply, 0, 0, []byte("reply-marker"), 0)
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	conn, o, err := clientSide(c, cl)
	client.outcome = o
	if err == nil {
		login := tds.AppendPackets(nil, tds.PacketLogin7, 0, 0, bytes.Repeat([]byte("secret-password "), 300), 512)
		batch := tds.AppendPackets(nil, tds.PacketSQLBatch, 0, 0, []byte("batch-marker"), 0)
		if _, err = conn.Write(append(login, batch...)); err == nil {
			var m tds.Message
			m, err = (&tds.MessageReader{R: conn}).ReadMessage()
			client.msgs = append(client.msgs, m)
		}
	}
	client.err = err
	c.Close()
	<-done
	return server, client, wire
}

func TestSessions(t *testing.T) {
	scfg, ccfg := certConfigs(t)
	settings := []tdstls.Setting{tdstls.NotSupported, tdstls.Off, tdstls.On, tdstls.Required, tdstls.Strict}
	for _, ss := range settings {
		for _, cs := range settings {
			t.Run(fmt.Sprintf("server=%v/client=%v", ss, cs), func(t *testing.T) {
				srv := &tdstls.Server{Setting: ss, Config: scfg}
				if ss == tdstls.NotSupported {
					srv.Config = nil
				}
				sres, cres, wire := session(t, srv, &tdstls.Client{Setting: cs, Config: ccfg})
				want, wantErr := expect(ss, cs)
				if wantErr != nil {
					if !errors.Is(sres.err, wantErr) {
						t.Fatalf("server error %v, want %v", sres.err, wantErr)
					}
					if cres.err == nil {
						t.Fatalf("client succeeded with outcome %v", cres.outcome)
					}
					return
				}
				if sres.err != nil || cres.err != nil {
					t.Fatalf("server: %v; client: %v", sres.err, cres.err)
				}
				if sres.outcome != want || cres.outcome != want {
					t.Fatalf("outcomes server %v client %v, want %v", sres.outcome, cres.outcome, want)
				}
				if len(sres.msgs) != 2 || sres.msgs[0].Type != tds.PacketLogin7 || len(sres.msgs[0].Data) != 16*300 ||
					string(sres.msgs[1].Data) != "batch-marker" || string(cres.msgs[0].Data) != "reply-marker" {
					t.Fatalf("messages differ: server got %d, client got %v", len(sres.msgs), cres.msgs)
				}
				// What an eavesdropper sees: LOGIN7 in clear only without
				// encryption; the rest in clear only without full TLS.
				if got, clear := wire.saw("secret-password"), want == tdstls.Plain; got != clear {
					t.Errorf("LOGIN7 visible on the wire: %v, want %v", got, clear)
				}
				for _, m := range []string{"batch-marker", "reply-marker"} {
					if got, clear := wire.saw(m), want == tdstls.Plain || want == tdstls.LoginOnly; got != clear {
						t.Errorf("%s visible on the wire: %v, want %v", m, got, clear)
					}
				}
			})
		}
	}
}

// expect is the table of TestSessions, written out by hand from MS-TDS
// 2.2.6.5 (not computed by Negotiate).
func expect(server, client tdstls.Setting) (tdstls.Outcome, error) {
	switch {
	case client == tdstls.Strict && server == tdstls.NotSupported:
		return 0, tdstls.ErrCannotEncrypt
	case client == tdstls.Strict:
		return tdstls.StrictTLS, nil
	case server == tdstls.Strict:
		return 0, tdstls.ErrStrictRequired
	case server == tdstls.NotSupported && (client == tdstls.On || client == tdstls.Required):
		return 0, tdstls.ErrCannotEncrypt
	case server == tdstls.NotSupported:
		return tdstls.Plain, nil
	case server == tdstls.Off && client == tdstls.NotSupported:
		return tdstls.Plain, nil
	case server == tdstls.Off && client == tdstls.Off:
		return tdstls.LoginOnly, nil
	}
	return tdstls.Full, nil
}

// TestBadCertificate: a client that verifies refuses the self-signed
// certificate it was not told to trust.
func TestBadCertificate(t *testing.T) {
	scfg, _ := certConfigs(t)
	_, other := certConfigs(t)
	for _, cs := range []tdstls.Setting{tdstls.Off, tdstls.On, tdstls.Strict} {
		_, cres, _ := session(t, &tdstls.Server{Setting: tdstls.Off, Config: scfg}, &tdstls.Client{Setting: cs, Config: other})
		var uerr x509.UnknownAuthorityError
		if !errors.As(cres.err, &uerr) {
			t.Errorf("client %v: error %v, want an unknown-authority error", cs, cres.err)
		}
	}
}

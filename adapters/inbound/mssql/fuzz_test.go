package mssql

import (
	"bufio"
	"bytes"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tlsconf"
	"github.com/hoophq/sidecar/ports"
)

// fakeUpstream answers every message on conn with DONE (DONE(ATTN) for an
// Attention), returning a prepared handle for sp_prepexec-like RPCs.
func fakeUpstream(conn net.Conn) {
	defer conn.Close()
	mr := &tds.MessageReader{R: conn, PacketSize: tds.MaxPacketSize}
	for {
		m, err := mr.ReadMessage()
		if err != nil {
			return
		}
		reply := (&tds.Done{}).Append(nil)
		if tds.IsAttention(m) {
			reply = (&tds.Done{Status: tds.DoneAttn}).Append(nil)
		}
		if tds.WriteMessage(conn, tds.PacketReply, 0, 0, reply, tds.DefaultPacketSize) != nil {
			return
		}
	}
}

// FuzzSession feeds a logged-in session arbitrary client bytes: packets,
// SQLBatch and RPC requests (seeded with go-mssqldb's and FreeTDS's
// captured messages, internal/tds/testdata/capture), Attention, garbage.
// The session must never panic or hang: it answers, or closes the
// connection with ERROR 4002.
func FuzzSession(f *testing.F) {
	dir := filepath.Join("..", "..", "..", "internal", "tds", "testdata", "capture")
	types := map[string]byte{"sqlbatch": tds.PacketSQLBatch, "rpc": tds.PacketRPC}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		for prefix, typ := range types {
			if bytes.HasPrefix([]byte(e.Name()), []byte(prefix)) {
				f.Add(tds.AppendPackets(nil, typ, 0, 0, b, 512))
			}
		}
	}
	batch := func(text string) []byte {
		b := &tds.SQLBatch{Headers: tds.TxHeaders(0, 1), Text: text}
		return tds.AppendPackets(nil, tds.PacketSQLBatch, 0, 0, b.Encode(), 4096)
	}
	f.Add(batch("DELETE FROM t; SELECT 1"))
	f.Add(append(batch("BEGIN TRAN"), batch("DELETE FROM t")...))
	f.Add(append(batch("TRUNCATE TABLE t"), tds.AppendAttention(nil, 0)...))
	f.Add(tds.AppendAttention(nil, 0))
	f.Add([]byte{tds.PacketSQLBatch, tds.StatusEOM, 0, 4, 0, 0, 1, 0})
	l := listenertest.FuzzListener(f, "mssql", ports.SpendOnAccepted)
	p := New(slog.New(slog.DiscardHandler))
	f.Fuzz(func(t *testing.T, in []byte) {
		client := listenertest.ReadConn{R: bytes.NewReader(in)}
		upA, upB := net.Pipe()
		go fakeUpstream(upB)
		s := newSession(p, l, p.Log(), client, bufio.NewReader(client), upA, bufio.NewReader(upA))
		s.user, s.database = "fuzz", "master"
		done := make(chan struct{})
		go func() { defer close(done); s.Run() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("the session did not end on %x", in)
		}
	})
}

// FuzzStartup feeds the login arbitrary client bytes: PRELOGIN (seeded with
// go-mssqldb's and FreeTDS's captured ones), the TLS ClientHello of a TDS
// 8.0 client, LOGIN7 (captured), garbage. The upstream address is empty,
// so a well-formed PRELOGIN and LOGIN7 end with the login refused. Any
// input must end in an error or a refusal, never a panic or a hang.
func FuzzStartup(f *testing.F) {
	dir := filepath.Join("..", "..", "..", "internal", "tds", "testdata", "capture")
	var prelogins, logins [][]byte
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		switch {
		case strings.HasPrefix(e.Name(), "prelogin"):
			prelogins = append(prelogins, tds.AppendPackets(nil, tds.PacketPrelogin, 0, 0, b, 4096))
		case strings.HasPrefix(e.Name(), "login7"):
			logins = append(logins, tds.AppendPackets(nil, tds.PacketLogin7, 0, 0, b, 4096))
		}
	}
	for _, p := range prelogins {
		f.Add(p)
		for _, l := range logins {
			f.Add(append(append([]byte(nil), p...), l...))
		}
	}
	f.Add([]byte{0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x01, 0x00})
	l := listenertest.FuzzListener(f, "mssql", ports.SpendOnSent)
	certs := tlsconf.NewCertLoader(l)
	p := New(nil)
	f.Fuzz(func(t *testing.T, in []byte) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			if s, _ := p.startup(listenertest.ReadConn{R: bytes.NewReader(in)}, l, certs, p.Log()); s != nil {
				s.close()
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("the login did not end on %x", in)
		}
	})
}

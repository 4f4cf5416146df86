package tdstls

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"flag"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/internal/tds"
)

var update = flag.Bool("update", false, "rewrite testdata/handshake/*.bin from a real handshake")

// seed returns a recorded wire capture from testdata/handshake (see
// TestCaptureSeeds).
func seed(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "handshake", name+".bin"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// FuzzWrappedReader feeds arbitrary socket bytes to the reader of the
// PRELOGIN-wrapped handshake: no panic, and what it returns is exactly the
// concatenated payload of the PRELOGIN (or reply) messages tds.MessageReader
// finds in the same bytes, up to the first error.
func FuzzWrappedReader(f *testing.F) {
	for _, name := range []string{"client_flight1", "server_flight1", "client_flight2", "server_flight2"} {
		f.Add(seed(f, name))
	}
	f.Add(tds.AppendPackets(nil, tds.PacketSQLBatch, 0, 0, []byte("not a handshake"), 0))
	f.Add([]byte{tds.PacketPrelogin, 0, 0, 7, 0, 0, 1, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		w := &wrappedConn{mr: tds.MessageReader{R: bytes.NewReader(in), PacketSize: tds.MaxPacketSize, MaxMessage: maxHandshakeMessage}}
		var got []byte
		buf := make([]byte, 37)
		for {
			n, err := w.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				break
			}
		}
		var want []byte
		mr := &tds.MessageReader{R: bytes.NewReader(in), PacketSize: tds.MaxPacketSize, MaxMessage: maxHandshakeMessage}
		for {
			m, err := mr.ReadMessage()
			if err != nil || m.Type != tds.PacketPrelogin && m.Type != tds.PacketReply {
				break
			}
			want = append(want, m.Data...)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("wrapped reader returned %d bytes, the messages hold %d", len(got), len(want))
		}
	})
}

// FuzzRecordReader: the TLS record reader passes bytes through unchanged
// and no single read crosses the end of a record header or body, so a
// tls.Conn above it can never hold bytes past the record it asked for.
func FuzzRecordReader(f *testing.F) {
	f.Add(seed(f, "loginonly_client"), uint8(7))
	f.Add(seed(f, "loginonly_client"), uint8(255))
	f.Add([]byte{0x17, 3, 3, 0, 0, 0x17, 3, 3, 0, 1, 'x'}, uint8(3))
	f.Add([]byte{0x17, 3, 3, 0xFF, 0xFF}, uint8(9))
	f.Fuzz(func(t *testing.T, in []byte, size uint8) {
		// Record boundaries, computed from the input independently.
		var ends []int
		for p := 0; p+recordHeaderLen <= len(in); {
			p += recordHeaderLen
			ends = append(ends, p)
			p += int(binary.BigEndian.Uint16(in[p-2:]))
			ends = append(ends, p)
		}
		r := &recordReader{R: bytes.NewReader(in)}
		buf := make([]byte, int(size)+1)
		var got []byte
		next := 0 // ends is ascending: the first boundary past the reads so far
		for {
			start := len(got)
			n, err := r.Read(buf)
			got = append(got, buf[:n]...)
			// One pass over ends in all, not one per read (quadratic on a
			// large input read a byte at a time).
			for next < len(ends) && ends[next] <= start {
				next++
			}
			if next < len(ends) && ends[next] < len(got) {
				t.Fatalf("read [%d,%d) crosses the boundary %d", start, len(got), ends[next])
			}
			if err != nil || n == 0 {
				break
			}
		}
		if !bytes.Equal(got, in[:len(got)]) {
			t.Fatal("record reader altered the bytes")
		}
	})
}

// FuzzFirstMessage: firstMessage ends the first message where
// tds.MessageReader does, on any input; a packet length under the header
// size is an error for both.
func FuzzFirstMessage(f *testing.F) {
	f.Add(tds.AppendPackets(nil, tds.PacketLogin7, 0, 0, bytes.Repeat([]byte("login "), 400), 512))
	f.Add(seed(f, "loginonly_plain"))
	f.Add([]byte{16, 0, 0, 4, 0, 0, 1, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		var fm firstMessage
		pos, ferr := 0, error(nil)
		for !fm.done && pos < len(in) {
			n := min(fm.next(), len(in)-pos)
			if ferr = fm.consume(in[pos : pos+n]); ferr != nil {
				break
			}
			pos += n
		}
		cr := &countReader{r: bytes.NewReader(in)}
		_, merr := (&tds.MessageReader{R: cr, PacketSize: 65535}).ReadMessage()
		switch {
		case merr == nil && (!fm.done || pos != cr.n):
			t.Fatalf("MessageReader ends the message at %d, firstMessage at %d (done %v, %v)", cr.n, pos, fm.done, ferr)
		case fm.done && merr != nil && !strings.Contains(merr.Error(), "type changed"):
			t.Fatalf("firstMessage ends at %d, MessageReader fails: %v", pos, merr)
		}
	})
}

type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	return n, err
}

// TestCaptureSeeds records a real handshake's wire bytes as the fuzz seeds
// (go test ./internal/tds/tdstls -run TestCaptureSeeds -update): the two
// flights each way of a TLS 1.2 handshake in PRELOGIN packets, and a
// login-only client's LOGIN7 as TLS records followed by a clear SQLBatch
// (and the same LOGIN7 packets in clear).
func TestCaptureSeeds(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite testdata/handshake")
	}
	cert, _, err := SelfSigned("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan *tapConn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- nil
			return
		}
		tc := &tapConn{Conn: c}
		srv := &Server{Setting: Off, Config: &tls.Config{Certificates: []tls.Certificate{cert}}}
		conn, err := srv.Upgrade(tc, LoginOnly)
		if err == nil {
			mr := &tds.MessageReader{R: conn}
			mr.ReadMessage()
			mr.ReadMessage()
		}
		done <- tc
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	cc := &tapConn{Conn: c}
	conn, err := (&Client{Setting: Off, Config: &tls.Config{InsecureSkipVerify: true}}).Upgrade(cc, LoginOnly) //nolint:gosec // a seed capture
	if err != nil {
		t.Fatal(err)
	}
	login := tds.AppendPackets(nil, tds.PacketLogin7, 0, 0, bytes.Repeat([]byte("login "), 100), 512)
	batch := tds.AppendPackets(nil, tds.PacketSQLBatch, 0, 0, []byte("SELECT 1"), 0)
	if _, err := conn.Write(append(login, batch...)); err != nil {
		t.Fatal(err)
	}
	sc := <-done
	if sc == nil || len(cc.writes) < 3 || len(sc.writes) < 2 {
		t.Fatalf("capture incomplete")
	}
	files := map[string][]byte{
		"client_flight1": cc.writes[0], "client_flight2": cc.writes[1],
		"server_flight1": sc.writes[0], "server_flight2": sc.writes[1],
		"loginonly_client": bytes.Join(cc.writes[2:], nil), "loginonly_plain": login,
	}
	os.MkdirAll(filepath.Join("testdata", "handshake"), 0o755)
	for name, b := range files {
		if err := os.WriteFile(filepath.Join("testdata", "handshake", name+".bin"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tapConn records each Write as the socket saw it.
type tapConn struct {
	net.Conn
	writes [][]byte
}

func (t *tapConn) Write(b []byte) (int, error) {
	t.writes = append(t.writes, append([]byte(nil), b...))
	return t.Conn.Write(b)
}

package postgres

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// readAll reads what the listener sends until it closes the connection.
func readAll(t *testing.T, c net.Conn) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("the listener did not close the connection: %v", err)
	}
	return b
}

// Bad input closes that one connection with a protocol-native error; the
// listener keeps serving.
func TestBadInputClosesOnlyThatConnection(t *testing.T) {
	f := newFixture(t)
	dial := func() net.Conn {
		c, err := net.Dial("tcp", f.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	// Garbage instead of a startup packet.
	c := dial()
	c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	readAll(t, c)

	// An unknown protocol version gets a FATAL 08P01.
	c = dial()
	pkt := binary.BigEndian.AppendUint32(nil, 8)
	pkt = binary.BigEndian.AppendUint32(pkt, 2<<16)
	c.Write(pkt)
	if out := readAll(t, c); !strings.Contains(string(out), "08P01") {
		t.Fatalf("answer to protocol 2.0: %q", out)
	}

	// A valid startup, then a malformed Bind: FATAL 08P01, connection closed.
	c = dial()
	c.Write(encode(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "postgres", "database": f.db}}))
	r := bufio.NewReader(c)
	for {
		typ, _, err := readFrame(r)
		if err != nil {
			t.Fatal(err)
		}
		if typ == 'Z' {
			break
		}
	}
	c.Write([]byte{'B', 0, 0, 0, 9, 'x', 0, 0xff, 0xff})
	c.Write(encode(&pgproto3.Sync{}))
	out, _ := io.ReadAll(r)
	if !strings.Contains(string(out), "08P01") || !strings.Contains(string(out), "malformed Bind") {
		t.Fatalf("answer to a malformed Bind: %q", out)
	}

	// A message length that lies.
	c = dial()
	c.Write(encode(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "postgres", "database": f.db}}))
	r = bufio.NewReader(c)
	for {
		typ, _, err := readFrame(r)
		if err != nil {
			t.Fatal(err)
		}
		if typ == 'Z' {
			break
		}
	}
	c.Write([]byte{'Q', 0x7f, 0xff, 0xff, 0xff})
	if out, _ := io.ReadAll(r); !strings.Contains(string(out), "invalid length") {
		t.Fatalf("answer to a huge length: %q", out)
	}

	// GSSENCRequest and SSLRequest (no certificate) are answered N, then the
	// startup proceeds on the same connection.
	c = dial()
	for _, m := range []encoder{&pgproto3.GSSEncRequest{}, &pgproto3.SSLRequest{}} {
		c.Write(encode(m))
		var b [1]byte
		if _, err := io.ReadFull(c, b[:]); err != nil || b[0] != 'N' {
			t.Fatalf("answer to %T: %q %v", m, b[0], err)
		}
	}
	c.Write(encode(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "postgres", "database": f.db}}))
	r = bufio.NewReader(c)
	if typ, _, err := readFrame(r); err != nil || typ != 'R' {
		t.Fatalf("after GSSENCRequest and SSLRequest: %q %v", typ, err)
	}

	// The listener still serves.
	var one int
	if err := f.connect("").QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("listener broken after bad input: %v", err)
	}
}

// A Sync batch of 400,000 messages is decided in time linear in its length
// (each Parse used to scan the whole batch: about 3 minutes for this one; the
// 32 MiB a batch may hold would have kept a core busy for an hour).
func TestLongBatchIsLinear(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int)")
	rc := f.raw()
	rc.q("PREPARE s1 AS SELECT 1")
	go func() {
		for range 100000 {
			rc.fe.Send(&pgproto3.Parse{Query: "SELECT 1"})
			rc.fe.Send(&pgproto3.Bind{PreparedStatement: "s1"})
			rc.fe.Send(&pgproto3.Execute{})
			rc.fe.Send(&pgproto3.Close{ObjectType: 'P'})
		}
		rc.fe.Send(&pgproto3.Sync{})
		rc.fe.Flush()
	}()
	rc.c.SetReadDeadline(time.Now().Add(60 * time.Second))
	n := 0
	for {
		m, err := rc.fe.Receive()
		if err != nil {
			t.Fatalf("after %d answers: %v", n, err)
		}
		n++
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	if n != 500001 {
		t.Fatalf("%d answers, want 500001", n)
	}
}

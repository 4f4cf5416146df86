package mongodb

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/internal/testlog"
	"github.com/hoophq/sidecar/ports"
)

// When the upstream ends a connection while the client is between
// commands (a restart, a failover, an idle timeout on the way), the
// listener closes the client's connection at once, after the reply the
// upstream sent first, and logs it (issue 31 point 4): the client reads
// the reply, then the end of the stream, not silence.
func TestUpstreamEndingAnIdleConnectionClosesTheClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ups := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			ups <- c
		}
	}()
	set := app.ListenerSettings{Name: "mongo", Protocol: "mongodb", Mode: app.ModeReturn, SpendOn: ports.SpendOnSent, Upstream: ln.Addr().String(),
		Approvals: []domain.ApprovalRule{{Name: "destructive", Match: domain.Match{Actions: []string{"DELETE"}}}}}
	if err := set.Approvals[0].Match.Compile(); err != nil {
		t.Fatal(err)
	}
	logs := &testlog.Buffer{}
	l := app.NewCore(app.CoreOptions{Sidecar: "idle", CP: fakecp.New(nil)}).Listener(set)
	addr := listenertest.Serve(t, New(slog.New(slog.NewTextHandler(logs, nil))), l)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))

	// A command in flight: forwarded, answered, relayed.
	find := doc(func(b *bsoncore.DocumentBuilder) { b.AppendString("find", "t").AppendString("$db", "test") })
	if _, err := c.Write(opMsg(1, 0, find)); err != nil {
		t.Fatal(err)
	}
	up := <-ups
	up.SetDeadline(time.Now().Add(10 * time.Second))
	req, err := wire.ReadMessage(up, 0)
	if err != nil {
		t.Fatalf("the upstream never got the find: %v", err)
	}
	h, _ := wire.ParseHeader(req)
	ok := doc(func(b *bsoncore.DocumentBuilder) { b.AppendDouble("ok", 1) })
	if _, err := up.Write(wire.ReplyMsg(h, 100, ok)); err != nil {
		t.Fatal(err)
	}
	if _, err := wire.ReadMessage(c, 0); err != nil {
		t.Fatalf("the find's reply: %v", err)
	}

	// Idle: the upstream sends one more reply and ends the connection.
	if _, err := up.Write(wire.ReplyMsg(h, 101, ok)); err != nil {
		t.Fatal(err)
	}
	up.Close()
	if _, err := wire.ReadMessage(c, 0); err != nil {
		t.Fatalf("the reply the upstream sent before it closed: %v", err)
	}
	n, err := c.Read(make([]byte, 64))
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("the upstream ended the idle connection; the client's stayed open")
	}
	if !errors.Is(err, io.EOF) {
		t.Fatalf("the client read %d bytes, %v; want the end of the stream", n, err)
	}
	const line = "mongodb upstream closed an idle connection; client connection closed"
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), line); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the listener never logged %q; log:\n%s", line, logs)
		}
	}
}

package postgres

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/internal/listenertest"
)

// serveAlone starts a return-mode listener holding DELETE in front of
// upstream, without the fixture's database.
func serveAlone(t *testing.T, upstream string) (string, *fakecp.CP) {
	cp := fakecp.New(nil)
	set := app.ListenerSettings{Name: "pg", Protocol: "postgres", Upstream: upstream, Mode: app.ModeReturn,
		WaitTimeout: time.Minute, Approvals: []domain.ApprovalRule{{Name: "db-destructive", Match: destructive}}}
	l := app.NewCore(app.CoreOptions{Sidecar: "test", CP: cp}).Listener(set)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		New(slog.New(slog.NewTextHandler(testWriter{t}, nil))).Serve(ctx, ln, l)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ln.Addr().String(), cp
}

// passwordUpstream is a server that answers every startup with a request
// for a cleartext password and then only reads. got receives the type of
// every message it reads after the startup.
func passwordUpstream(t *testing.T) (addr string, got chan byte) {
	got = make(chan byte, 16)
	addr = listenertest.ServeTCP(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		if _, err := readStartup(r); err != nil {
			return
		}
		c.Write(encode(&pgproto3.AuthenticationCleartextPassword{}))
		for {
			typ, _, err := readFrame(r)
			if err != nil {
				return
			}
			got <- typ
		}
	})
	return addr, got
}

// Before authentication completes the listener takes only authentication
// messages: a Query from a client that has not logged in is neither
// analysed, nor filed for approval, nor forwarded; the connection ends
// with FATAL 08P01, as PostgreSQL ends it.
func TestNoStatementBeforeAuthentication(t *testing.T) {
	up, got := passwordUpstream(t)
	addr, cp := serveAlone(t, up)
	c, fe := untilPasswordRequest(t, addr)
	defer c.Close()
	fe.Send(&pgproto3.Query{String: "DELETE FROM t"})
	fe.Flush()
	rest, _ := io.ReadAll(c)
	if !strings.Contains(string(rest), "08P01") {
		t.Fatalf("want FATAL 08P01, got %q", rest)
	}
	if n := len(cp.Records()); n != 0 {
		t.Fatalf("a client that never logged in filed %d approval request(s)", n)
	}
	select {
	case typ := <-got:
		t.Fatalf("the upstream received a %q message from a client that never logged in", typ)
	case <-time.After(100 * time.Millisecond):
	}
}

// untilPasswordRequest connects to the listener at addr, sends a
// StartupMessage and reads the AuthenticationCleartextPassword that
// passwordUpstream asks for; the connection has a 10 s deadline.
func untilPasswordRequest(t *testing.T, addr string) (net.Conn, *pgproto3.Frontend) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fe := pgproto3.NewFrontend(c, c)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "postgres", "database": "x"}})
	fe.Flush()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if m, err := fe.Receive(); err != nil {
		t.Fatal(err)
	} else if _, ok := m.(*pgproto3.AuthenticationCleartextPassword); !ok {
		t.Fatalf("want the password request, got %T", m)
	}
	return c, fe
}

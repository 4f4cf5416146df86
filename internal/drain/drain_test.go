package drain_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/drain"
	"github.com/hoophq/sidecar/internal/testlog"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// stuck is a session whose Expire returns only once every session of the
// set is being expired (or, with the old one-at-a-time Expire, never: the
// bound in the test ends it).
type stuck struct {
	all     *sync.WaitGroup
	release <-chan struct{}
}

func (s *stuck) StartDrain() {}
func (s *stuck) Expire() {
	s.all.Done()
	<-s.release
}

// Expire tells every session at once: one whose client stopped reading (an
// Expire that blocks) delays no other's.
func TestExpireTellsSessionsInParallel(t *testing.T) {
	d := drain.NewSet()
	var all sync.WaitGroup
	release := make(chan struct{})
	const n = 4
	all.Add(n)
	for range n {
		d.Add(&stuck{all: &all, release: release})
	}
	expired := make(chan struct{})
	go func() { defer close(expired); d.Expire() }()
	entered := make(chan struct{})
	go func() { all.Wait(); close(entered) }()
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("Expire told one session at a time: a blocked one held back the others")
	}
	close(release)
	select {
	case <-expired:
	case <-time.After(10 * time.Second):
		t.Fatal("Expire did not return once every session was told")
	}
}

// panicky is a Conn whose Run panics.
type panicky struct{}

func (panicky) StartDrain() {}
func (panicky) Expire()     {}
func (panicky) Run()        { panic("boom in Run") }

// A panic while serving one connection closes that connection, logs the
// panic with its stack, and the listener goes on accepting.
func TestPanicLoggedWithItsStack(t *testing.T) {
	buf := &testlog.Buffer{}
	log := slog.New(slog.NewTextHandler(buf, nil))
	l := app.NewCore(app.CoreOptions{Sidecar: "unit"}).Listener(app.ListenerSettings{Name: "drainpanic", Protocol: "test"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	logins := make(chan struct{}, 2)
	go func() {
		defer close(done)
		drain.Serve(ctx, ln, l, log, "test", func(net.Conn, *app.Listener, *tlsconf.CertLoader, *slog.Logger) (*panicky, error) {
			logins <- struct{}{}
			return &panicky{}, nil
		}, func(net.Conn, error, *slog.Logger) {})
	}()
	defer func() { cancel(); l.EndDrain(); <-done }()
	for i := range 2 { // the second connection shows the listener still accepts
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Fatalf("connection %d: read data, want it closed after the panic", i)
		}
		c.Close()
		<-logins
	}
	out := buf.String()
	if !strings.Contains(out, "test connection failed; closed") || !strings.Contains(out, "boom in Run") ||
		!strings.Contains(out, "stack=") || !strings.Contains(out, "drain_test.go") {
		t.Fatalf("log %q, want the panic with a stack naming drain_test.go", out)
	}
}

// A startup that fails hands its error to ended and runs nothing; one that
// returns a nil session (the client was answered) runs nothing either.
func TestServeEndedAndNilSession(t *testing.T) {
	l := app.NewCore(app.CoreOptions{Sidecar: "unit"}).Listener(app.ListenerSettings{Name: "drainended", Protocol: "test"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	ended := make(chan error, 1)
	var calls atomic.Int32
	boom := errors.New("login broke")
	go func() {
		defer close(done)
		drain.Serve(ctx, ln, l, slog.New(slog.DiscardHandler), "test", func(c net.Conn, _ *app.Listener, certs *tlsconf.CertLoader, _ *slog.Logger) (*panicky, error) {
			if certs == nil {
				t.Error("startup got no CertLoader")
			}
			if calls.Add(1) == 1 { // connections are served one after the other below
				return nil, boom
			}
			c.Write([]byte("answered"))
			return nil, nil
		}, func(_ net.Conn, err error, _ *slog.Logger) { ended <- err })
	}()
	defer func() { cancel(); l.EndDrain(); <-done }()
	for i := range 2 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, _ := io.ReadAll(c) // a Run of a nil session would panic; the read ends when the connection closes
		c.Close()
		if i == 0 {
			if got := <-ended; got != boom {
				t.Fatalf("ended got %v, want %v", got, boom)
			}
		} else if string(b) != "answered" {
			t.Fatalf("read %q, want the startup's answer and then the close", b)
		}
	}
}

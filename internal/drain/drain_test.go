package drain_test

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/drain"
	"github.com/hoophq/sidecar/internal/testlog"
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
		drain.Serve(ctx, ln, l, log, "test", func(net.Conn, *slog.Logger) drain.Conn {
			logins <- struct{}{}
			return panicky{}
		})
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

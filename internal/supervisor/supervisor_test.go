package supervisor_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/supervisor"
	"github.com/hoophq/sidecar/internal/testcert"
)

// echo is a line protocol for these tests: every line a client sends is
// answered with "<listener> <upstream>" from the listener's settings at
// that moment, so a test sees which listener serves a connection and with
// which rules. Its connections count as in flight until they close, so a
// stopped listener keeps them until the drain deadline; then it writes
// "bye" and closes them (its native error), unless deaf is set.
type echo struct{ deaf bool }

func (echo) Name() string { return "echo" }

func (e echo) Serve(ctx context.Context, ln net.Listener, l *app.Listener) error {
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	go func() {
		<-l.DrainDeadline()
		if e.deaf {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for c := range conns {
			_, _ = io.WriteString(c, "bye\n")
			c.Close()
		}
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			return nil
		}
		mu.Lock()
		conns[c] = true
		mu.Unlock()
		go func() {
			defer func() { mu.Lock(); delete(conns, c); mu.Unlock(); c.Close() }()
			sc := bufio.NewScanner(c)
			for sc.Scan() {
				s := l.Settings()
				mu.Lock()
				_, err := io.WriteString(c, s.Name+" "+s.Upstream+"\n")
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
}

// broken is a protocol whose Serve fails at once.
type broken struct{}

func (broken) Name() string { return "broken" }
func (broken) Serve(context.Context, net.Listener, *app.Listener) error {
	return io.ErrUnexpectedEOF
}

func newSup(t *testing.T, grace time.Duration, p ...app.Protocol) *supervisor.Supervisor {
	t.Helper()
	if len(p) == 0 {
		p = []app.Protocol{echo{}}
	}
	s := supervisor.New(app.NewCore(app.CoreOptions{Sidecar: "t"}), append(p, broken{}), grace, nil)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s
}

func free(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func ls(name, listen, upstream string) app.ListenerSettings {
	return app.ListenerSettings{Name: name, Protocol: "echo", Listen: listen, Upstream: upstream}
}

// client is one open connection to a listener.
type client struct {
	c  net.Conn
	br *bufio.Reader
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return &client{c: c, br: bufio.NewReader(c)}
}

// ask sends a line and returns the answer ("" and the error when the
// connection ended).
func (c *client) ask(t *testing.T) (string, error) {
	t.Helper()
	_ = c.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c.c, "?\n"); err != nil {
		return "", err
	}
	line, err := c.br.ReadString('\n')
	return strings.TrimSpace(line), err
}

func askNew(t *testing.T, addr string) string {
	t.Helper()
	got, err := dial(t, addr).ask(t)
	if err != nil {
		t.Fatalf("ask %s: %v", addr, err)
	}
	return got
}

// A move whose new address does not bind changes nothing: the listener
// keeps serving on its old address, and /readyz stays ready.
func TestFailedMoveKeepsTheOldListener(t *testing.T) {
	s := newSup(t, time.Second)
	a, busy := free(t), free(t)
	if err := s.Apply([]app.ListenerSettings{ls("api", a, "u1")}); err != nil {
		t.Fatal(err)
	}
	taken, err := net.Listen("tcp", busy)
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	err = s.Apply([]app.ListenerSettings{ls("api", busy, "u2")})
	if err == nil || !strings.Contains(err.Error(), "listener api: bind "+busy) {
		t.Fatalf("Apply = %v, want a bind error naming listener api", err)
	}
	if got := askNew(t, a); got != "api u1" {
		t.Fatalf("old address answers %q, want the old listener with its old rules", got)
	}
	if err := s.Ready(); err != nil {
		t.Fatalf("Ready after a refused move: %v", err)
	}
}

// Two listeners that swap addresses in one reload both keep serving, each
// on the other's old address.
func TestSwapAddresses(t *testing.T) {
	s := newSup(t, time.Second)
	x, y := free(t), free(t)
	if err := s.Apply([]app.ListenerSettings{ls("a", x, "ua"), ls("b", y, "ub")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply([]app.ListenerSettings{ls("a", y, "ua"), ls("b", x, "ub")}); err != nil {
		t.Fatalf("swap: %v", err)
	}
	if got := askNew(t, x); got != "b ub" {
		t.Errorf("%s answers %q, want listener b", x, got)
	}
	if got := askNew(t, y); got != "a ua" {
		t.Errorf("%s answers %q, want listener a", y, got)
	}
	if err := s.Ready(); err != nil {
		t.Fatalf("Ready after the swap: %v", err)
	}
}

// A move binds the new address before the old one closes; the old address
// is closed once the move is applied.
func TestMoveBindsFirst(t *testing.T) {
	s := newSup(t, 100*time.Millisecond)
	a, b := free(t), free(t)
	if err := s.Apply([]app.ListenerSettings{ls("api", a, "u")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply([]app.ListenerSettings{ls("api", b, "u")}); err != nil {
		t.Fatal(err)
	}
	if got := askNew(t, b); got != "api u" {
		t.Fatalf("new address answers %q", got)
	}
	if c, err := net.DialTimeout("tcp", a, time.Second); err == nil {
		c.Close()
		t.Fatalf("the old address %s still accepts after the move", a)
	}
}

// Readiness follows the applied set: removing a listener leaves the
// Sidecar ready; a listener whose Serve failed makes it not ready; so does
// shutdown.
func TestReadinessFromAppliedSet(t *testing.T) {
	s := newSup(t, 100*time.Millisecond)
	a, b := free(t), free(t)
	if err := s.Apply([]app.ListenerSettings{ls("a", a, "u"), ls("b", b, "u")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply([]app.ListenerSettings{ls("a", a, "u")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(); err != nil {
		t.Fatalf("Ready after removing a listener: %v", err)
	}
	bad := app.ListenerSettings{Name: "bad", Protocol: "broken", Listen: b}
	if err := s.Apply([]app.ListenerSettings{ls("a", a, "u"), bad}); err != nil {
		t.Fatal(err)
	}
	var err error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err = s.Ready(); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "listener bad stopped") {
		t.Fatalf("Ready with a failed listener = %v, want it named", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s.Shutdown(ctx)
	if err := s.Ready(); err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Fatalf("Ready during shutdown = %v", err)
	}
}

// A listener certificate that does not load refuses the start (nothing is
// bound) and a reload (the running listener keeps its address and rules).
func TestCertificateThatDoesNotLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	badCert := filepath.Join(dir, "missing.crt")
	withTLS := func(l app.ListenerSettings, cert, key string) app.ListenerSettings {
		l.TLS = app.TLSServer{CertFile: cert, KeyFile: key}
		return l
	}
	s := newSup(t, time.Second)
	a := free(t)
	err := s.Apply([]app.ListenerSettings{withTLS(ls("db", a, "u1"), badCert, badCert)})
	if err == nil || !strings.Contains(err.Error(), "listener db: listener tls: load") {
		t.Fatalf("start with a bad certificate = %v, want refused naming the listener", err)
	}
	if c, err := net.DialTimeout("tcp", a, time.Second); err == nil {
		c.Close()
		t.Fatal("a refused start left the address bound")
	}
	if err := s.Apply([]app.ListenerSettings{ls("db", a, "u1")}); err != nil {
		t.Fatal(err)
	}
	err = s.Apply([]app.ListenerSettings{withTLS(ls("db", a, "u2"), badCert, badCert)})
	if err == nil || !strings.Contains(err.Error(), "listener db") {
		t.Fatalf("reload with a bad certificate = %v, want refused", err)
	}
	if got := askNew(t, a); got != "db u1" {
		t.Fatalf("after a refused reload the listener answers %q, want its old rules", got)
	}
	cert, key := testcert.Write(t, dir, "localhost")
	if err := s.Apply([]app.ListenerSettings{withTLS(ls("db", a, "u3"), cert, key)}); err != nil {
		t.Fatalf("reload with a good certificate: %v", err)
	}
}

// A removed listener stops accepting at once; its connections end at the
// drain deadline with the protocol's own close ("bye"); then it is gone.
func TestRemovedListenerDrainsWithDeadline(t *testing.T) {
	s := newSup(t, 300*time.Millisecond)
	a, keep := free(t), free(t)
	if err := s.Apply([]app.ListenerSettings{ls("old", a, "u"), ls("keep", keep, "u")}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, a)
	if got, err := c.ask(t); err != nil || got != "old u" {
		t.Fatalf("before: %q %v", got, err)
	}
	if err := s.Apply([]app.ListenerSettings{ls("keep", keep, "u")}); err != nil {
		t.Fatal(err)
	}
	if n, err := net.DialTimeout("tcp", a, time.Second); err == nil {
		n.Close()
		t.Fatal("a removed listener still accepts")
	}
	// Still open during the drain, with its rules.
	if got, err := c.ask(t); err != nil || got != "old u" {
		t.Fatalf("during the drain: %q %v", got, err)
	}
	_ = c.c.SetDeadline(time.Now().Add(5 * time.Second))
	line, err := c.br.ReadString('\n')
	if strings.TrimSpace(line) != "bye" {
		t.Fatalf("at the deadline the connection got %q %v, want the protocol's bye", line, err)
	}
	if _, err := c.br.ReadString('\n'); err == nil {
		t.Fatal("the connection stayed open after the deadline")
	}
	waitDrained(t, s)
	if err := s.Ready(); err != nil {
		t.Fatalf("Ready after the removal: %v", err)
	}
}

// A protocol that ignores the drain deadline has its connections closed by
// the supervisor after CloseWait.
func TestDeadlineClosesWhatTheProtocolLeaves(t *testing.T) {
	s := newSup(t, 100*time.Millisecond, echo{deaf: true})
	a := free(t)
	if err := s.Apply([]app.ListenerSettings{ls("old", a, "u")}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, a)
	if _, err := c.ask(t); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(nil); err != nil {
		t.Fatal(err)
	}
	_ = c.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.br.ReadString('\n'); err == nil {
		t.Fatal("the connection was not closed")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the connection outlived the drain deadline and CloseWait")
	}
	waitDrained(t, s)
}

// Live connections follow their listener's rule changes: in place, and on
// the old address of a listener that moved (while they drain).
func TestLiveConnectionsFollowRuleChanges(t *testing.T) {
	s := newSup(t, 5*time.Second)
	a, b := free(t), free(t)
	if err := s.Apply([]app.ListenerSettings{ls("api", a, "u1")}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, a)
	if got, _ := c.ask(t); got != "api u1" {
		t.Fatalf("before: %q", got)
	}
	if err := s.Apply([]app.ListenerSettings{ls("api", a, "u2")}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.ask(t); got != "api u2" {
		t.Fatalf("after an in-place reload the live connection answers %q, want u2", got)
	}
	if err := s.Apply([]app.ListenerSettings{ls("api", b, "u3")}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.ask(t); got != "api u3" {
		t.Fatalf("after a move the draining connection answers %q, want the new rules u3", got)
	}
	if err := s.Apply([]app.ListenerSettings{ls("api", b, "u4")}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.ask(t); got != "api u4" {
		t.Fatalf("a later reload did not reach the draining connection: %q", got)
	}
}

// Shutdown returns once the connections have ended at the deadline, and a
// later Apply is refused.
func TestShutdownDrainsThenRefusesApply(t *testing.T) {
	s := newSup(t, 5*time.Second)
	a := free(t)
	if err := s.Apply([]app.ListenerSettings{ls("api", a, "u")}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, a)
	if _, err := c.ask(t); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	s.Shutdown(ctx)
	_ = c.c.SetDeadline(time.Now().Add(time.Second))
	if line, _ := c.br.ReadString('\n'); strings.TrimSpace(line) != "bye" {
		t.Fatalf("at shutdown's deadline the connection got %q, want bye", line)
	}
	if err := s.Apply([]app.ListenerSettings{ls("api", a, "u")}); err == nil {
		t.Fatal("Apply after Shutdown was accepted")
	}
}

func waitDrained(t *testing.T, s *supervisor.Supervisor) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if s.Draining() == 0 {
			return
		}
	}
	t.Fatalf("%d listener(s) still draining", s.Draining())
}

// While two listeners swap addresses again and again, every client that
// connects is answered: the sockets stay bound through each swap.
func TestSwapsRefuseNoClient(t *testing.T) {
	s := newSup(t, 5*time.Second)
	x, y := free(t), free(t)
	if err := s.Apply([]app.ListenerSettings{ls("a", x, "u"), ls("b", y, "u")}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	failures := make(chan error, 1000)
	var wg sync.WaitGroup
	for _, addr := range []string{x, y} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.DialTimeout("tcp", addr, time.Second)
				if err != nil {
					failures <- err
					continue
				}
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				_, _ = io.WriteString(c, "?\n")
				if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
					failures <- err
				}
				c.Close()
			}
		}()
	}
	for i := 0; i < 20; i++ {
		a, b := x, y
		if i%2 == 0 {
			a, b = y, x
		}
		if err := s.Apply([]app.ListenerSettings{ls("a", a, "u"), ls("b", b, "u")}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Errorf("a client was refused or cut during the swaps: %v", err)
	}
}

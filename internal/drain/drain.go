// Package drain is the connection skeleton the database listeners
// (postgres, mysql, mssql, mongodb) share, and how they stop under
// app.Protocol's drain contract: the accept loop of Serve, one connection's
// life (login, run, a panic logged with its stack), and the set of a Serve
// call's sessions, which close once idle after the listener stops and all
// at once, in parallel, at the drain deadline (app.Listener.DrainDeadline).
// drain.go holds Serve and the Set; server.go the Server a protocol embeds
// for its Name and Serve; guard.go the Guard a session embeds for
// its part of that rule. What "idle" means and what a client is told when
// its session closes is each protocol's own (its drain.go), written within
// ShutdownWrite.
package drain

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// ShutdownWrite bounds the write of a shutdown message to one client (ERR
// 1053, FATAL 57P01, ERROR 6005): a client that stopped reading cannot hold
// its session, or the drain, longer than that.
const ShutdownWrite = 2 * time.Second

// Session is one client connection as the drain sees it.
type Session interface {
	// StartDrain marks the session to close once it is idle, and closes it
	// now if it is.
	StartDrain()
	// Expire closes the session now (the drain deadline), telling the client
	// in its protocol's words, with a write deadline of ShutdownWrite at
	// most. Set.Expire calls it on every session at once.
	Expire()
}

// Conn is a logged-in client connection: a Session that Serve runs.
type Conn interface {
	Session
	// Run relays the session until either side ends it.
	Run()
}

// Startup logs in the client on conn for l: certs serves l's certificate
// (one CertLoader per Serve call, following reloads) and log names the
// listener and the client. It returns the session to run; a nil session
// and a nil error when the client was answered during login (a refused
// login, a CancelRequest); or the error that ended the connection during
// login, which Serve hands to the protocol's Ended. S is the protocol's
// session type, a pointer.
type Startup[S Conn] func(conn net.Conn, l *app.Listener, certs *tlsconf.CertLoader, log *slog.Logger) (S, error)

// Ended tells why a connection ended during login: it logs err and, when
// its protocol has words for it, answers the client on conn.
type Ended func(conn net.Conn, err error, log *slog.Logger)

// Set holds the sessions of one Serve call.
type Set struct {
	mu       sync.Mutex
	sessions map[Session]struct{}
	draining bool
}

// NewSet returns an empty set that is not draining.
func NewSet() *Set { return &Set{sessions: map[Session]struct{}{}} }

// Add registers s; once the set drains, s is marked to close when idle.
func (d *Set) Add(s Session) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sessions[s] = struct{}{}
	if d.draining {
		s.StartDrain()
	}
}

// Remove forgets s (its connection ended).
func (d *Set) Remove(s Session) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.sessions, s)
}

// Start marks every session to close when idle (and closes the idle ones).
func (d *Set) Start() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.draining = true
	for s := range d.sessions {
		s.StartDrain()
	}
}

// Expire closes every session left, each in a goroutine of its own, so one
// client that stopped reading delays no other's shutdown message. It
// returns once each has been told.
func (d *Set) Expire() {
	d.mu.Lock()
	list := make([]Session, 0, len(d.sessions))
	for s := range d.sessions {
		list = append(list, s)
	}
	d.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range list {
		wg.Go(s.Expire)
	}
	wg.Wait()
}

// Serve accepts clients on ln until ctx is cancelled or ln is closed; it
// returns nil then. Each connection runs in a goroutine of its own: startup
// logs it in (ended is told when that fails), and the session it returns
// runs (Conn.Run) as a member of the Serve call's Set. Those sessions start draining when Serve returns and
// are expired when l.DrainDeadline is closed. A panic while serving a
// connection closes that connection only, logged as "<protocol> connection
// failed; closed" with the panic and its stack. A failed Accept is logged
// as "<protocol> listener: accept failed" and retried after 5 ms, doubling
// up to 1 s.
func Serve[S interface {
	comparable
	Conn
}](ctx context.Context, ln net.Listener, l *app.Listener, log *slog.Logger, protocol string, startup Startup[S], ended Ended) error {
	d := NewSet()
	certs := tlsconf.NewCertLoader(l)
	login := func(conn net.Conn, log *slog.Logger) Conn {
		s, err := startup(conn, l, certs, log)
		if err != nil {
			ended(conn, err, log)
			return nil
		}
		var none S
		if s == none {
			return nil
		}
		return s
	}
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer d.Start()
	go func() {
		<-l.DrainDeadline()
		d.Start()
		d.Expire()
	}()
	_ = Accept(ln, func(conn net.Conn) { serveConn(conn, l, d, log, protocol, login) }, func(err error) bool {
		if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
			return false
		}
		log.Warn(protocol+" listener: accept failed", "listener", l.Settings().Name, "error", err)
		return true
	})
	return nil
}

// serveConn runs one client connection to its end.
func serveConn(conn net.Conn, l *app.Listener, d *Set, log *slog.Logger, protocol string, login func(net.Conn, *slog.Logger) Conn) {
	defer conn.Close()
	log = log.With("listener", l.Settings().Name, "client", conn.RemoteAddr().String())
	defer func() {
		if r := recover(); r != nil {
			log.Error(protocol+" connection failed; closed", "panic", r, "stack", string(debug.Stack()))
		}
	}()
	s := login(conn, log)
	if s == nil {
		return
	}
	d.Add(s)
	defer d.Remove(s)
	s.Run()
}

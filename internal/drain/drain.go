// Package drain is what the database listeners (postgres, mysql, mongodb)
// share to stop under app.Protocol's drain contract: the accept loop of
// Serve, and the set of a Serve call's sessions, which close once idle after
// the listener stops and all at once at the drain deadline
// (app.Listener.DrainDeadline). What "idle" means and what a client is told
// when its session closes is each protocol's own (its drain.go).
package drain

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/hoophq/sidecar/app"
)

// Session is one client connection as the drain sees it.
type Session interface {
	// StartDrain marks the session to close once it is idle, and closes it
	// now if it is.
	StartDrain()
	// Expire closes the session now (the drain deadline), telling the client
	// in its protocol's words.
	Expire()
}

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

// Expire closes every session left. It returns once each has been told.
func (d *Set) Expire() {
	d.mu.Lock()
	list := make([]Session, 0, len(d.sessions))
	for s := range d.sessions {
		list = append(list, s)
	}
	d.mu.Unlock()
	for _, s := range list {
		s.Expire()
	}
}

// Serve accepts clients on ln and runs handle in a goroutine for each,
// until ctx is cancelled or ln is closed; it returns nil then. Its sessions
// (those handle adds to the Set) start draining when Serve returns and are
// expired when l.DrainDeadline is closed. A failed Accept is logged as
// "<protocol> listener: accept failed" and retried after 5 ms, doubling up
// to 1 s.
func Serve(ctx context.Context, ln net.Listener, l *app.Listener, log *slog.Logger, protocol string,
	handle func(conn net.Conn, d *Set)) error {
	d := NewSet()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer d.Start()
	go func() {
		<-l.DrainDeadline()
		d.Start()
		d.Expire()
	}()
	delay := 5 * time.Millisecond
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			log.Warn(protocol+" listener: accept failed", "listener", l.Settings().Name, "error", err)
			time.Sleep(delay)
			delay = min(2*delay, time.Second)
			continue
		}
		delay = 5 * time.Millisecond
		go handle(conn, d)
	}
}

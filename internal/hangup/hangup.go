// Package hangup is the client hang-up watch the database listeners
// (postgres, mysql, mongodb) run while the gate holds a statement in wait
// mode (docs/architecture.md, "a gone client's wait ends"), and the probe
// (Closed) that tells whether a peer ended an idle connection before a
// statement is written to it.
package hangup

import (
	"bufio"
	"errors"
	"os"
	"sync/atomic"
	"time"
)

// poll is the past read deadline that interrupts the watch's Peek, as
// net/http ends its background read.
var poll = time.Unix(1, 0)

// Reader is the session's buffered reader of the client connection
// (bufio.Reader, or internal/connbuf.Reader, which also answers a Peek
// beyond its Size with bufio.ErrBufferFull).
type Reader interface {
	Buffered() int
	Size() int
	Peek(n int) ([]byte, error)
}

// Watch peeks at r (the session's buffered reader of the client connection,
// idle while the gate waits) in a goroutine. Bytes the client pipelines
// meanwhile stay buffered, in order, for the session. When the connection
// ends (EOF, reset, a TLS close), gone is called once with the read error.
// Once r's buffer is full of pipelined bytes the watch stops: TCP holds the
// rest, and a hang-up after that is seen when the wait ends. stop ends the
// watch (setDeadline(poll), then no deadline) and returns once r is the
// session's again.
func Watch(r Reader, setDeadline func(time.Time) error, gone func(err error)) (stop func()) {
	done := make(chan struct{})
	var stopping atomic.Bool
	go func() {
		defer close(done)
		for !stopping.Load() {
			n := r.Buffered()
			if n >= r.Size() {
				return
			}
			_, err := r.Peek(n + 1)
			switch {
			case err == nil:
			case stopping.Load(), errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, bufio.ErrBufferFull):
				return
			default:
				gone(err)
				return
			}
		}
	}()
	return func() {
		stopping.Store(true)
		setDeadline(poll)
		<-done
		setDeadline(time.Time{})
	}
}

// Watcher is Watch bound to one session's reader and connection, in the
// form app.Hold.Watch takes: each call starts a watch that calls gone on a
// hang-up and returns its stop.
func Watcher(r Reader, setDeadline func(time.Time) error) func(gone func(err error)) (stop func()) {
	return func(gone func(error)) func() { return Watch(r, setDeadline, gone) }
}

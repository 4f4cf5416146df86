package app

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// Watcher coalesces reads of approvals that someone is waiting on: however
// many waiters (MCP approval_wait calls, wait-mode statements) watch one id,
// the Control Plane is read at most once per Interval for it. One goroutine
// per watched id reads it, publishes the result to every waiter, and stops
// as soon as no waiter is left (a waiter that hung up costs nothing further).
//
// A failed read is transient: an outage or a restart of the Control Plane
// ends no wait. Waiters keep waiting, the reads go on every Interval, and the
// first read that succeeds after the Control Plane is back delivers the
// decision. Each waiter's own ctx decides when it gives up; only then does a
// failure reach it, and only one it saw happen (see WaitDecided). A waiter
// that joins after a failed read never gets that earlier failure.
type Watcher struct {
	CP    ports.ControlPlane
	Clock ports.Clock
	// Interval between reads of one id; 2 s when zero (spec: "every 2 seconds").
	Interval time.Duration

	mu      sync.Mutex
	entries map[string]*watch
}

// watch is the shared state of one watched id, guarded by Watcher.mu.
type watch struct {
	subs    int
	reads   uint64          // reads published so far
	have    bool            // some read succeeded
	latest  domain.Approval // the last read that succeeded
	err     error           // the last read's error; nil when it succeeded
	changed chan struct{}   // closed and replaced at every read
}

// readTimeout bounds one read of the Control Plane.
const readTimeout = 10 * time.Second

func (w *Watcher) interval() time.Duration {
	if w.Interval <= 0 {
		return 2 * time.Second
	}
	return w.Interval
}

// WaitDecided waits until a person decides approval id (its next is no
// longer "wait": decided or expired) and returns it with decided = true.
//
// A read that failed does not end the wait, except an answer that will not
// change by itself: ports.ErrNotFound, ports.ErrOlder or ports.ErrUnauthorized
// read after this call began end it at once with that error.
//
// When ctx ends first, decided is false and:
//   - the last read failed, and failed after this call began (the Control
//     Plane is still failing): a is the last status read, if any (a.ID is ""
//     otherwise), and err is that failure;
//   - else, a status was read: a is the last one and err is nil;
//   - else (nothing read yet, or only a failure from before this call):
//     err is ctx.Err().
func (w *Watcher) WaitDecided(ctx context.Context, id string) (a domain.Approval, decided bool, err error) {
	e, joined := w.subscribe(id)
	defer w.unsubscribe(e)
	for {
		w.mu.Lock()
		reads, have, latest, lerr, ch := e.reads, e.have, e.latest, e.err, e.changed
		w.mu.Unlock()
		fresh := reads > joined // a read finished since this waiter joined
		if fresh && lerr != nil && final(lerr) {
			return latest, false, lerr
		}
		if have && lerr == nil && domain.NextFor(latest.EffectiveStatus(w.Clock.Now())) != domain.NextWait {
			return latest, true, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			switch {
			case fresh && lerr != nil:
				return latest, false, lerr
			case have:
				return latest, false, nil
			default:
				return latest, false, ctx.Err()
			}
		}
	}
}

// final reports whether a Control Plane error is an answer that waiting will
// not change (as opposed to an outage, a 5xx or a timeout).
func final(err error) bool {
	return errors.Is(err, ports.ErrNotFound) || errors.Is(err, ports.ErrOlder) || errors.Is(err, ports.ErrUnauthorized)
}

// subscribe adds a waiter on id, starting its reader when none runs, and
// returns the entry with the number of reads published before the waiter joined.
func (w *Watcher) subscribe(id string) (*watch, uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.entries == nil {
		w.entries = map[string]*watch{}
	}
	e := w.entries[id]
	if e == nil {
		e = &watch{changed: make(chan struct{})}
		w.entries[id] = e
		go w.loop(id, e)
	}
	e.subs++
	return e, e.reads
}

func (w *Watcher) unsubscribe(e *watch) {
	w.mu.Lock()
	e.subs--
	w.mu.Unlock()
}

// loop reads id at once, then every interval while it has waiters; a failed
// read is published like any other and the reads go on.
func (w *Watcher) loop(id string, e *watch) {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		a, err := w.CP.Get(ctx, id)
		cancel()
		w.mu.Lock()
		e.reads++
		e.err = err
		if err == nil {
			e.have, e.latest = true, a
		}
		close(e.changed)
		e.changed = make(chan struct{})
		w.mu.Unlock()

		time.Sleep(w.interval())
		w.mu.Lock()
		if e.subs == 0 {
			delete(w.entries, id)
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
}

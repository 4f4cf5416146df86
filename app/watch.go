package app

import (
	"context"
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
type Watcher struct {
	CP    ports.ControlPlane
	Clock ports.Clock
	// Interval between reads of one id; 2 s when zero (spec: "every 2 seconds").
	Interval time.Duration

	mu      sync.Mutex
	entries map[string]*watch
}

type watch struct {
	subs    int
	have    bool
	latest  domain.Approval
	err     error
	changed chan struct{}
}

func (w *Watcher) interval() time.Duration {
	if w.Interval <= 0 {
		return 2 * time.Second
	}
	return w.Interval
}

// WaitDecided returns once the approval's next is no longer "wait" (a person
// decided, or it expired), with decided = true; or when ctx ends, with the
// last status read and decided = false (err = ctx.Err() only if nothing was
// read yet). A Control Plane error ends the wait with that error.
func (w *Watcher) WaitDecided(ctx context.Context, id string) (a domain.Approval, decided bool, err error) {
	e := w.subscribe(id)
	defer w.unsubscribe(id, e)
	for {
		w.mu.Lock()
		have, latest, lerr, ch := e.have, e.latest, e.err, e.changed
		w.mu.Unlock()
		if have {
			if lerr != nil {
				return latest, false, lerr
			}
			if domain.NextFor(latest.EffectiveStatus(w.Clock.Now())) != domain.NextWait {
				return latest, true, nil
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			if have {
				return latest, false, nil
			}
			return latest, false, ctx.Err()
		}
	}
}

func (w *Watcher) subscribe(id string) *watch {
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
	return e
}

func (w *Watcher) unsubscribe(id string, e *watch) {
	w.mu.Lock()
	e.subs--
	w.mu.Unlock()
}

// loop reads id every interval while it has subscribers.
func (w *Watcher) loop(id string, e *watch) {
	t := time.NewTimer(0)
	defer t.Stop()
	for range t.C {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		a, err := w.CP.Get(ctx, id)
		cancel()
		w.mu.Lock()
		e.have, e.err = true, err
		if err == nil {
			e.latest = a
		}
		close(e.changed)
		e.changed = make(chan struct{})
		w.mu.Unlock()
		t.Reset(w.interval())
		<-t.C
		w.mu.Lock()
		if e.subs == 0 {
			delete(w.entries, id)
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		t.Reset(0)
	}
}

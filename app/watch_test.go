package app_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// readersEnd lets the Watcher's readers end before a synctest bubble
// returns: each ends within one interval (at most 300 ms in these tests)
// once its last waiter left, in the bubble's clock. A reader that never ends
// fails the test (synctest reports the bubble deadlocked).
func readersEnd() { time.Sleep(time.Second) }

func filed(t *testing.T, cp *fakecp.CP) string {
	t.Helper()
	f, err := cp.File(context.Background(), ports.FileRequest{Fingerprint: "v1:x", ListenerName: "pg", ApprovalRule: "r"})
	if err != nil {
		t.Fatal(err)
	}
	return f.Approval.ID
}

// 200 waiters on one id for 3 s (the bubble's clock) read the Control Plane at most once per
// interval (plus the first read and one in flight); once they have all left,
// the Control Plane is not read again.
func TestWatcherCoalescesAndStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		cp := fakecp.New(nil)
		id := filed(t, cp)
		const interval = 200 * time.Millisecond
		w := &app.Watcher{CP: cp, Clock: ports.SystemClock{}, Interval: interval}

		before := cp.Gets.Load()
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, 200)
		for i := 0; i < 200; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
				defer cancel()
				a, decided, err := w.WaitDecided(ctx, id)
				if err != nil || decided || a.Status != domain.StatusPending {
					errs <- err
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		close(errs)
		for err := range errs {
			t.Fatalf("a waiter ended with decided or error (%v), want PENDING at its timeout", err)
		}
		gets := cp.Gets.Load() - before
		if limit := int64(elapsed/interval) + 2; gets > limit {
			t.Fatalf("%d Control Plane reads in %v for 200 waiters, want at most %d", gets, elapsed, limit)
		}
		if gets < 2 {
			t.Fatalf("only %d reads in %v: the watcher is not polling", gets, elapsed)
		}

		left := cp.Gets.Load()
		time.Sleep(6 * interval)
		if extra := cp.Gets.Load() - left; extra > 1 {
			t.Fatalf("%d reads after every waiter left, want none (at most one in flight)", extra)
		}
		settled := cp.Gets.Load()
		time.Sleep(4 * interval)
		if n := cp.Gets.Load(); n != settled {
			t.Fatalf("the watcher kept reading after its waiters left (%d → %d)", settled, n)
		}
	})
}

func TestWatcherDeliversDecisionToEveryWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		cp := fakecp.New(nil)
		id := filed(t, cp)
		w := &app.Watcher{CP: cp, Clock: ports.SystemClock{}, Interval: 20 * time.Millisecond}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		results := make(chan domain.Status, 50)
		for i := 0; i < 50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, decided, err := w.WaitDecided(ctx, id)
				if err != nil || !decided {
					results <- "error"
					return
				}
				results <- a.Status
			}()
		}
		synctest.Wait() // every waiter is waiting
		if err := cp.Decide(id, domain.StatusApproved, ""); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		close(results)
		for st := range results {
			if st != domain.StatusApproved {
				t.Fatalf("a waiter got %q, want APPROVED", st)
			}
		}
	})
}

func TestWatcherReportsControlPlaneError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		w := &app.Watcher{CP: fakecp.New(nil), Clock: ports.SystemClock{}, Interval: 20 * time.Millisecond}
		if _, _, err := w.WaitDecided(context.Background(), "no-such-id"); !errors.Is(err, ports.ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
	})
}

func TestApprovalsWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		e := newEnv(t, envOpts{})
		id := mustDeny(t, e.check(deleteInvoice)).ApprovalID
		q := e.l.Approvals()

		a, timedOut, _, err := q.Wait(context.Background(), id, 100*time.Millisecond)
		if err != nil || !timedOut || a.Status != domain.StatusPending {
			t.Fatalf("undecided wait: status=%q timedOut=%v err=%v, want PENDING timed out", a.Status, timedOut, err)
		}
		go func() {
			time.Sleep(50 * time.Millisecond)
			_ = e.cp.Decide(id, domain.StatusRejected, "no")
		}()
		a, timedOut, _, err = q.Wait(context.Background(), id, 10*time.Second)
		if err != nil || timedOut || a.Status != domain.StatusRejected {
			t.Fatalf("decided wait: status=%q timedOut=%v err=%v", a.Status, timedOut, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, _, _, err := q.Wait(ctx, "other", time.Second); err == nil {
			t.Fatal("a caller that left got no error")
		}
	})
}

// flakyCP is the fake Control Plane whose reads fail with the error set by
// failWith (nil: reads answer again), as during an outage or a restart. It
// counts reads, so a test waits for reads instead of sleeping.
type flakyCP struct {
	*fakecp.CP
	fail  atomic.Pointer[error]
	reads atomic.Int64
	// script, when set, is answered read after read (one entry per read,
	// the last one repeated) instead of the fake's state.
	mu     sync.Mutex
	script []func(id string) (domain.Approval, error)
}

func (c *flakyCP) failWith(err error) {
	if err == nil {
		c.fail.Store(nil)
		return
	}
	c.fail.Store(&err)
}

func (c *flakyCP) Get(ctx context.Context, id string) (domain.Approval, error) {
	defer c.reads.Add(1)
	c.mu.Lock()
	if len(c.script) > 0 {
		step := c.script[0]
		if len(c.script) > 1 {
			c.script = c.script[1:]
		}
		c.mu.Unlock()
		return step(id)
	}
	c.mu.Unlock()
	if p := c.fail.Load(); p != nil {
		return domain.Approval{}, *p
	}
	return c.CP.Get(ctx, id)
}

// waitReads waits until at least n reads have been answered since the start.
func (c *flakyCP) waitReads(t *testing.T, n int64) {
	t.Helper()
	if !c.untilReads(n) {
		t.Fatalf("only %d reads, want %d", c.reads.Load(), n)
	}
}

// untilReads is waitReads for other goroutines: false after 10 s of the
// bubble's clock without n reads (a bound only a hang reaches; it costs no
// real time).
func (c *flakyCP) untilReads(n int64) bool {
	deadline := time.Now().Add(10 * time.Second)
	for c.reads.Load() < n {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

type waitResult struct {
	a       domain.Approval
	decided bool
	err     error
}

// startWaiters starts n WaitDecided calls on id with ctx; their results
// arrive on the returned channel.
func startWaiters(ctx context.Context, w *app.Watcher, id string, n int) <-chan waitResult {
	out := make(chan waitResult, n)
	for i := 0; i < n; i++ {
		go func() {
			a, decided, err := w.WaitDecided(ctx, id)
			out <- waitResult{a, decided, err}
		}()
	}
	return out
}

// A Control Plane outage in the middle of a wait ends no waiter: the reads
// go on, and once the Control Plane answers again every waiter gets the
// decision made meanwhile (issue 13: one blip failed every coalesced wait).
func TestWatcherWaitsThroughAnOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		cp := &flakyCP{CP: fakecp.New(nil)}
		id := filed(t, cp.CP)
		w := &app.Watcher{CP: cp, Clock: ports.SystemClock{}, Interval: 10 * time.Millisecond}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()

		cp.failWith(ports.ErrUnavailable)
		results := startWaiters(ctx, w, id, 30)
		cp.waitReads(t, 5) // five failed reads: the outage lasts
		select {
		case r := <-results:
			t.Fatalf("a waiter ended during the outage: %+v", r)
		default:
		}
		if err := cp.Decide(id, domain.StatusApproved, ""); err != nil {
			t.Fatal(err)
		}
		cp.failWith(nil) // the Control Plane is back
		for i := 0; i < 30; i++ {
			r := <-results
			if r.err != nil || !r.decided || r.a.Status != domain.StatusApproved {
				t.Fatalf("waiter %d: %+v, want APPROVED decided", i, r)
			}
		}
	})
}

// A waiter that joins after a failed read never gets that failure: while the
// Control Plane keeps failing and no read happens before its deadline, it
// ends with its own deadline; when the next read succeeds it waits on.
func TestWatcherNewWaiterNeverGetsACachedError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		cp := &flakyCP{CP: fakecp.New(nil)}
		id := filed(t, cp.CP)
		const interval = 300 * time.Millisecond
		w := &app.Watcher{CP: cp, Clock: ports.SystemClock{}, Interval: interval}
		long, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()

		cp.failWith(ports.ErrUnavailable)
		first := startWaiters(long, w, id, 1) // keeps the watch alive
		cp.waitReads(t, 1)

		// Joins right after the failed read; its deadline comes before the next read.
		short, cancelShort := context.WithTimeout(context.Background(), interval/10)
		defer cancelShort()
		a, decided, err := w.WaitDecided(short, id)
		if decided || errors.Is(err, ports.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("late waiter: status=%q decided=%v err=%v, want its own deadline, not the earlier failure", a.Status, decided, err)
		}

		// Joins after a failed read; the Control Plane is back for the next read.
		late := startWaiters(long, w, id, 5)
		cp.failWith(nil)
		if err := cp.Decide(id, domain.StatusRejected, "no"); err != nil {
			t.Fatal(err)
		}
		for i, ch := range []<-chan waitResult{first, late, late, late, late, late} {
			r := <-ch
			if r.err != nil || !r.decided || r.a.Status != domain.StatusRejected {
				t.Fatalf("waiter %d: %+v, want REJECTED decided", i, r)
			}
		}
	})
}

// A Control Plane still failing when a waiter's deadline comes is reported to
// it, with the last status read before the outage when there was one; a
// Control Plane that came back by then is not.
func TestWatcherReportsAnOutageStillThereAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		cp := &flakyCP{CP: fakecp.New(nil)}
		id := filed(t, cp.CP)
		w := &app.Watcher{CP: cp, Clock: ports.SystemClock{}, Interval: 10 * time.Millisecond}

		// A status was read, then the Control Plane failed until the deadline.
		go func() { cp.untilReads(2); cp.failWith(ports.ErrUnavailable) }()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		a, decided, err := w.WaitDecided(ctx, id)
		if !errors.Is(err, ports.ErrUnavailable) || decided || a.ID != id || a.Status != domain.StatusPending {
			t.Fatalf("outage at the deadline: id=%q status=%q decided=%v err=%v, want the failure with the last PENDING", a.ID, a.Status, decided, err)
		}

		// Failing from the start (a new watcher, so nothing was read before): the
		// failure, and no status.
		w = &app.Watcher{CP: cp, Clock: ports.SystemClock{}, Interval: 10 * time.Millisecond}
		ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel2()
		if a, _, err := w.WaitDecided(ctx2, id); !errors.Is(err, ports.ErrUnavailable) || a.ID != "" {
			t.Fatalf("failing from the start: id=%q err=%v, want the failure and no status", a.ID, err)
		}

		// Failed, then back before the deadline: PENDING at the deadline, no error.
		n := cp.reads.Load()
		go func() { cp.untilReads(n + 3); cp.failWith(nil) }()
		ctx3, cancel3 := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel3()
		if a, decided, err := w.WaitDecided(ctx3, id); err != nil || decided || a.Status != domain.StatusPending {
			t.Fatalf("back before the deadline: status=%q decided=%v err=%v, want PENDING", a.Status, decided, err)
		}
	})
}

// Reads are published in the order they happen: waiters see a decision only
// from the read that carried it, after the failures and PENDING reads before
// it, and an answer that waiting will not change (not found) read after a
// success ends the waits at once.
func TestWatcherOrdering(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		pending := func(id string) (domain.Approval, error) {
			return domain.Approval{ID: id, Status: domain.StatusPending}, nil
		}
		unavailable := func(string) (domain.Approval, error) { return domain.Approval{}, ports.ErrUnavailable }
		approved := func(id string) (domain.Approval, error) {
			return domain.Approval{ID: id, Status: domain.StatusApproved}, nil
		}
		cp := &flakyCP{CP: fakecp.New(nil), script: []func(string) (domain.Approval, error){
			pending, unavailable, pending, unavailable, unavailable, approved}}
		w := &app.Watcher{CP: cp, Clock: ports.SystemClock{}, Interval: 20 * time.Millisecond}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		results := startWaiters(ctx, w, "a1", 10)
		for i := 0; i < 10; i++ {
			r := <-results
			if r.err != nil || !r.decided || r.a.Status != domain.StatusApproved {
				t.Fatalf("waiter %d: %+v, want APPROVED", i, r)
			}
		}
		if n := cp.reads.Load(); n < 6 {
			t.Fatalf("waiters answered after %d reads, want the sixth (the one that carried the decision)", n)
		}

		notFound := func(string) (domain.Approval, error) { return domain.Approval{}, ports.ErrNotFound }
		cp2 := &flakyCP{CP: fakecp.New(nil), script: []func(string) (domain.Approval, error){
			pending, unavailable, notFound}}
		w2 := &app.Watcher{CP: cp2, Clock: ports.SystemClock{}, Interval: 20 * time.Millisecond}
		results = startWaiters(ctx, w2, "a2", 10)
		for i := 0; i < 10; i++ {
			if r := <-results; !errors.Is(r.err, ports.ErrNotFound) || r.decided {
				t.Fatalf("waiter %d: %+v, want not found", i, r)
			}
		}
	})
}

package app_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

func filed(t *testing.T, cp *fakecp.CP) string {
	t.Helper()
	f, err := cp.File(context.Background(), ports.FileRequest{Fingerprint: "v1:x", ListenerName: "pg", ApprovalRule: "r"})
	if err != nil {
		t.Fatal(err)
	}
	return f.Approval.ID
}

// 200 waiters on one id for ~3 s read the Control Plane at most once per
// interval (plus the first read and one in flight); once they have all left,
// the Control Plane is not read again.
func TestWatcherCoalescesAndStops(t *testing.T) {
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
}

func TestWatcherDeliversDecisionToEveryWaiter(t *testing.T) {
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
	time.Sleep(50 * time.Millisecond)
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
}

func TestWatcherReportsControlPlaneError(t *testing.T) {
	w := &app.Watcher{CP: fakecp.New(nil), Clock: ports.SystemClock{}, Interval: 20 * time.Millisecond}
	if _, _, err := w.WaitDecided(context.Background(), "no-such-id"); !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

func TestApprovalsWait(t *testing.T) {
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
}

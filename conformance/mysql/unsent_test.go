package mysqlconf

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// spend_approval_on: sent spends an approval only by a forward (issue
// "Faults…", point 2). In wait mode the DELETE waits for a person while
// nothing reads the listener's upstream connection; MariaDB ends that
// connection meanwhile (here a KILL; wait_timeout or a restart alike).
// When the person approves, the listener finds the upstream closed before
// it writes the statement: the client gets ERR 1184, the approval reads
// APPROVED (given back: nothing was sent), and the agent's resend on a new
// connection runs the DELETE once, EXECUTED. Before, the write went into
// the closed socket, the missing answer spent the approval, and the DELETE
// never ran.
func TestSentModeApprovalSurvivesAnUpstreamClosedDuringTheWait(t *testing.T) {
	e := newEnvNamed(t, "unsent")
	addr, _ := e.sidecar(listenerOpts{mode: "wait"})
	e.direct("CREATE TABLE t (id int)")
	e.direct("INSERT INTO t VALUES (1), (2), (3)")
	ctx := context.Background()
	c := e.conn(addr, "", nil)
	var upstreamID int64
	if err := c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&upstreamID); err != nil {
		t.Fatal(err)
	}
	const del = "DELETE FROM t WHERE id = 2"
	done := make(chan error, 1)
	go func() { _, err := c.ExecContext(ctx, del); done <- err }()

	id := pendingReview(t, e)
	e.direct(fmt.Sprintf("KILL %d", upstreamID))
	e.cp.Approve(t, id)
	select {
	case err := <-done:
		myErr(t, err, 1184)
	case <-time.After(30 * time.Second):
		t.Fatal("the held DELETE did not end after its approval")
	}
	if st := e.settled(id); st != "APPROVED" {
		t.Fatalf("approval %s after a resend whose upstream had closed, want APPROVED (nothing was sent)", st)
	}
	if n := e.count("SELECT count(*) FROM t"); n != 3 {
		t.Fatalf("%d rows after the unsent DELETE, want 3", n)
	}

	c2 := e.conn(addr, "", nil)
	if _, err := c2.ExecContext(ctx, del); err != nil {
		t.Fatalf("resend on a new connection: %v, want it to run under the kept approval", err)
	}
	if st := e.settled(id); st != "EXECUTED" {
		t.Fatalf("approval %s after the forwarded resend, want EXECUTED", st)
	}
	if n := e.count("SELECT count(*) FROM t"); n != 2 {
		t.Fatalf("%d rows after the approved DELETE, want 2", n)
	}
}

// pendingReview waits for the env's one PENDING approval request and
// returns its id.
func pendingReview(t *testing.T, e *env) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, r := range e.cp.Reviews(t) {
			if r.Status == "PENDING" {
				return r.ID
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no approval request was filed")
	return ""
}

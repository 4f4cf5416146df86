package faults

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hoophq/sidecar/conformance/harness"
)

// heldAndApproved sends sql once (held), approves its approval and returns
// the approval's id.
func heldAndApproved(t *testing.T, cp *harness.ControlPlane, agentURL, sql string) string {
	t.Helper()
	var pe *pgconn.PgError
	if err := sendOnce(t, agentURL, sql); !errors.As(err, &pe) || len(harness.ApprovalIDs(pe.Message)) != 1 {
		t.Fatalf("first send: %v; want held", err)
	}
	id := harness.ApprovalIDs(pe.Message)[0]
	cp.Approve(t, id)
	return id
}

// An approved INSERT that runs longer than the Control Plane's lease (3 s
// lease, 5 s statement): the Sidecar renews the lease while the statement
// is with the upstream, so the approval stays PROCESSING and is settled
// EXECUTED by the Sidecar when PostgreSQL answers, not by the lease. (On the
// code before leases this passes too: there was no lease to lapse; it
// guards the renewals.)
func TestLongStatementKeepsItsLease(t *testing.T) {
	dbURL := harness.FreshDatabase(t)
	direct := connect(t, dbURL)
	exec(t, direct, "CREATE TABLE t (v int)")
	cp := harness.StartControlPlane(t, harness.CPOptions{Sidecars: map[string]string{"test": sidecarToken}, ProcessingLease: "3s"})
	_, agentURL := insertSidecar(t, cp.URL, harness.FreeAddr(t), dbURL, "accepted")
	const sql = "INSERT INTO t SELECT 7 FROM pg_sleep(5)"
	id := heldAndApproved(t, cp, agentURL, sql)
	if err := sendOnce(t, agentURL, sql); err != nil {
		t.Fatalf("the approved resend: %v", err)
	}
	if n := count(t, direct, "SELECT count(*) FROM t"); n != 1 {
		t.Fatalf("the INSERT ran %d times, want once", n)
	}
	if r := cp.Review(t, id); r.Status != "EXECUTED" || r.SettledBy != "" {
		t.Fatalf("approval %s: %s settled by %q; want EXECUTED, settled by the Sidecar (the lease was renewed)", id, r.Status, r.SettledBy)
	}
}

// The kill -9 between claim and settle: a Sidecar killed while an
// approved INSERT is with PostgreSQL leaves the approval PROCESSING only
// until its lease lapses; then the Control Plane settles it EXECUTED,
// outcome unknown (settled_by lease), so the approval cannot run the
// statement again: after a new Sidecar starts, the identical send is held
// under a new approval, and the INSERT ran at most once. Fails on the code
// before leases (the approval stays PROCESSING).
func TestKilledSidecarsProcessingApprovalLapsesToExecuted(t *testing.T) {
	dbURL := harness.FreshDatabase(t)
	direct := connect(t, dbURL)
	exec(t, direct, "CREATE TABLE t (v int)")
	cp := harness.StartControlPlane(t, harness.CPOptions{Sidecars: map[string]string{"test": sidecarToken}, ProcessingLease: "3s"})
	listen := harness.FreeAddr(t)
	sc, agentURL := insertSidecar(t, cp.URL, listen, dbURL, "accepted")
	const sql = "INSERT INTO t SELECT 7 FROM pg_sleep(6)"
	id := heldAndApproved(t, cp, agentURL, sql)
	sent := make(chan error, 1)
	go func() { sent <- sendOnce(t, agentURL, sql) }()
	waitStatus(t, cp, id, "PROCESSING", 10*time.Second)
	time.Sleep(1500 * time.Millisecond) // the first renew is due after 1 s
	sc.Kill()
	if err := <-sent; err == nil {
		t.Fatal("the resend succeeded through a killed Sidecar")
	}
	r := waitStatus(t, cp, id, "EXECUTED", 15*time.Second)
	if r.SettledBy != "lease" {
		t.Fatalf("approval %s: EXECUTED settled by %q, want the lease", id, r.SettledBy)
	}
	insertSidecar(t, cp.URL, listen, dbURL, "accepted")
	var pe *pgconn.PgError
	err := sendOnce(t, agentURL, sql)
	if !errors.As(err, &pe) || len(harness.ApprovalIDs(pe.Message)) != 1 || harness.ApprovalIDs(pe.Message)[0] == id {
		t.Fatalf("the send after the lapse: %v; want held under a new approval", err)
	}
	time.Sleep(6 * time.Second) // the killed Sidecar's INSERT, if PostgreSQL ran it, has ended
	if n := count(t, direct, "SELECT count(*) FROM t"); n > 1 {
		t.Fatalf("the INSERT ran %d times, want at most once", n)
	}
	t.Logf("approval %s: EXECUTED by the lease; PostgreSQL ran the INSERT %d time(s) (the outcome the lease could not know)",
		id, count(t, direct, "SELECT count(*) FROM t"))
}

// waitStatus polls approval id until it reads want, failing after timeout.
func waitStatus(t *testing.T, cp *harness.ControlPlane, id, want string, timeout time.Duration) harness.Review {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		r := cp.Review(t, id)
		if r.Status == want {
			return r
		}
		select {
		case <-ctx.Done():
			t.Fatalf("approval %s reads %s after %s, want %s", id, r.Status, timeout, want)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

package postgres

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// settledStatus polls id until it is no longer PROCESSING (the session settles
// it as the answer, or the connection's end, comes), bounded by 20 s, which
// only a ticket left open reaches.
func (f *fixture) settledStatus(id string) domain.Status {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := f.status(id)
		if st != domain.StatusProcessing || time.Now().After(deadline) {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// spentStatus polls id until the session claimed and settled it (neither
// APPROVED nor PROCESSING), for a client that did not wait for its answer;
// bounded by 20 s, which only a ticket left open reaches.
func (f *fixture) spentStatus(id string) domain.Status {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := f.status(id)
		if (st != domain.StatusProcessing && st != domain.StatusApproved) || time.Now().After(deadline) {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// heldApproved sends q on a raw connection, expects it held, approves it and
// returns its approval id.
func heldApproved(t *testing.T, f *fixture, q string) string {
	t.Helper()
	got := ids(f.raw().q(q))
	if len(got) != 1 {
		t.Fatalf("%q was not held", q)
	}
	f.approve(got[0])
	return got[0]
}

// An error raised while the statement executes (a unique violation, an
// error inside a function, which may have done something that outlives the
// rollback) is no proof that nothing ran: the approval is spent, and the
// next identical send is held again (domain.NothingRan, spend.go).
func TestSpendOnAcceptedErrorWhileRunningSpends(t *testing.T) {
	f := newFixtureNamed(t, "spend", withSpend(ports.SpendOnAccepted), withApproval("inserts", inserts))
	f.direct("CREATE TABLE u (id int PRIMARY KEY)")
	f.direct("INSERT INTO u VALUES (1)")
	f.direct("CREATE SEQUENCE spend_seq")
	f.direct(`CREATE FUNCTION spend_f() RETURNS int LANGUAGE plpgsql AS $$
BEGIN PERFORM nextval('spend_seq'); EXECUTE 'SELECT * FROM spend_nosuch'; RETURN 1; END $$`)
	for _, tc := range []struct{ q, code string }{
		{"INSERT INTO u VALUES (1)", "23505"},
		{"INSERT INTO u SELECT spend_f()", "42P01"},
	} {
		id := heldApproved(t, f, tc.q)
		rc := f.raw()
		if got := rc.q(tc.q); !strings.Contains(got, "E["+tc.code) {
			t.Fatalf("%q: %s, want the upstream's %s", tc.q, got, tc.code)
		}
		if st := f.settledStatus(id); st != domain.StatusExecuted {
			t.Fatalf("%q: approval %s after an error raised while running, want EXECUTED", tc.q, st)
		}
		if again := ids(rc.q(tc.q)); len(again) != 1 || again[0] == id {
			t.Fatalf("%q: the next send was not held under a new approval: %v", tc.q, again)
		}
	}
}

// The upstream lost mid-answer (the backend terminates itself) leaves the
// outcome unknown: the approval is spent when the session ends, never left
// PROCESSING.
func TestSpendOnAcceptedUpstreamLostSpends(t *testing.T) {
	f := newFixtureNamed(t, "spend", withSpend(ports.SpendOnAccepted), withApproval("inserts", inserts))
	f.direct("CREATE TABLE u (id int)")
	q := "INSERT INTO u SELECT 1 FROM pg_terminate_backend(pg_backend_pid())"
	id := heldApproved(t, f, q)
	rc := f.raw()
	rc.send(queryMsg(q))
	rc.untilClosed()
	if st := f.spentStatus(id); st != domain.StatusExecuted {
		t.Fatalf("approval %s after the upstream was lost mid-answer, want EXECUTED", st)
	}
}

// A client that hangs up right after its approved statement was forwarded
// ends the session before the answer: the statement may run (here it
// does), so the approval is spent, never left PROCESSING.
func TestSpendOnAcceptedClientGoneSpends(t *testing.T) {
	f := newFixtureNamed(t, "spend", withSpend(ports.SpendOnAccepted), withApproval("inserts", inserts))
	f.direct("CREATE TABLE u (id int)")
	q := "INSERT INTO u SELECT 1 FROM pg_sleep(0.3)"
	id := heldApproved(t, f, q)
	rc := f.raw()
	rc.send(queryMsg(q))
	rc.c.Close()
	if st := f.spentStatus(id); st != domain.StatusExecuted {
		t.Fatalf("approval %s after the client hung up, want EXECUTED", st)
	}
}

// queryMsg is a simple Query.
func queryMsg(q string) *pgproto3.Query { return &pgproto3.Query{String: q} }

// untilClosed reads until the listener closes the connection, bounded.
func (rc *rawClient) untilClosed() {
	rc.t.Helper()
	rc.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		if _, err := rc.fe.Receive(); err != nil {
			if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
				rc.t.Fatal("the listener kept the connection open after its upstream was lost")
			}
			return
		}
	}
}

package postgres

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

var inserts = domain.Match{Actions: []string{"INSERT"}}

// spend_approval_on: accepted: a resend the upstream refuses gives the
// approval back (APPROVED); the next accepted one spends it (EXECUTED).
func TestSpendOnAccepted(t *testing.T) {
	f := newFixture(t, withSpend(ports.SpendOnAccepted), withApproval("inserts", inserts))
	f.direct("CREATE TABLE u (id int PRIMARY KEY)")
	f.direct("INSERT INTO u VALUES (1)")
	ctx := context.Background()
	c := f.connect(returnApp)

	_, err := c.Exec(ctx, "INSERT INTO later VALUES (1)")
	id := heldID(t, err)
	f.approve(id)
	_, err = c.Exec(ctx, "INSERT INTO later VALUES (1)")
	pgErr(t, err, "42P01") // raised before anything ran: the approval is given back
	if st := f.status(id); st != domain.StatusApproved {
		t.Fatalf("after a refused resend the approval is %s, want APPROVED", st)
	}
	f.direct("CREATE TABLE later (id int)")
	if _, err := c.Exec(ctx, "INSERT INTO later VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if st := f.status(id); st != domain.StatusExecuted {
		t.Fatalf("after an accepted resend the approval is %s, want EXECUTED", st)
	}
	// Simple protocol too.
	_, err = c.PgConn().Exec(ctx, "INSERT INTO later2 VALUES (2)").ReadAll()
	id2 := heldID(t, err)
	f.approve(id2)
	_, err = c.PgConn().Exec(ctx, "INSERT INTO later2 VALUES (2)").ReadAll()
	pgErr(t, err, "42P01")
	if st := f.status(id2); st != domain.StatusApproved {
		t.Fatalf("simple protocol: refused resend left %s", st)
	}
}

// Twenty connections send the approved identical INSERT at once: one runs.
func TestConcurrentResendRunsOnce(t *testing.T) {
	f := newFixture(t, withApproval("inserts", inserts))
	f.direct("CREATE TABLE t (id int)")
	ctx := context.Background()
	_, err := f.connect(returnApp).Exec(ctx, "INSERT INTO t VALUES (42)")
	f.approve(heldID(t, err))

	const n = 20
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		c := f.connect(returnApp)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = c.Exec(ctx, "INSERT INTO t VALUES (42)")
		}()
	}
	close(start)
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else {
			pgErr(t, err, CodeHeld)
		}
	}
	if rows := f.count("SELECT count(*) FROM t"); rows != 1 || ok != 1 {
		t.Fatalf("%d rows, %d successes; want exactly one", rows, ok)
	}
}

// With the Control Plane down, a held statement gets a clear error and
// statements that need no approval keep working.
func TestControlPlaneUnavailable(t *testing.T) {
	f := newFixture(t)
	f.cp.Fail = ports.ErrUnavailable // set before any connection exists
	f.direct("CREATE TABLE t (id int)")
	ctx := context.Background()
	c := f.connect(returnApp)
	_, err := c.Exec(ctx, "DROP TABLE t")
	pe := pgErr(t, err, CodeUnavailable)
	if !strings.Contains(pe.Message, "Control Plane is unreachable") {
		t.Fatalf("message %q does not name the Control Plane", pe.Message)
	}
	var one int
	if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %v", err)
	}
}

// A policy rule denies outright, without an approval.
func TestPolicyDenies(t *testing.T) {
	f := newFixture(t, withPolicy("no-drop-db", "databases are managed by the platform team",
		domain.Match{Actions: []string{"DROP_DATABASE"}}))
	ctx := context.Background()
	_, err := f.connect(returnApp).Exec(ctx, "DROP DATABASE hoop_never_there")
	pe := pgErr(t, err, CodeHeld)
	if pe.Message != "statement denied by policy no-drop-db: databases are managed by the platform team" {
		t.Fatalf("message %q", pe.Message)
	}
	if len(f.cp.Records()) != 0 {
		t.Fatal("a policy denial filed an approval")
	}
}

// With an mcp block the denial leads with the id and names approval_wait.
func TestDenialNamesMCPTool(t *testing.T) {
	f := newFixture(t, withMCP())
	f.direct("CREATE TABLE t (id int)")
	_, err := f.connect(returnApp).Exec(context.Background(), "DROP TABLE t")
	pe := pgErr(t, err, CodeHeld)
	id := ids(pe.Message)[0]
	want := "approval " + id + ": waiting for approval; call the MCP tool approval_wait with the approval id, then resend the identical statement once it is approved (statement held for human approval)"
	if pe.Message != want {
		t.Fatalf("message %q\nwant    %q", pe.Message, want)
	}
	if !strings.Contains(pe.Hint, "approval_wait") || !strings.Contains(pe.Detail, id) {
		t.Fatalf("hint %q detail %q", pe.Hint, pe.Detail)
	}
}

// awaitRecord waits until the Control Plane holds n approval requests.
func (f *fixture) awaitRecord(n int) string {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if recs := f.cp.Records(); len(recs) >= n {
			return recs[n-1].ID
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.t.Fatal("no approval request was filed")
	return ""
}

// Wait mode holds the statement until a person approves, then runs it.
func TestWaitModeRunsOnceApproved(t *testing.T) {
	f := newFixture(t, withMode(app.ModeWait))
	f.direct("CREATE TABLE t (id int)")
	c := f.connect("plain agent")
	done := make(chan error, 1)
	go func() {
		_, err := c.Exec(context.Background(), "DROP TABLE t")
		done <- err
	}()
	f.approve(f.awaitRecord(1))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := f.count("SELECT count(*) FROM pg_tables WHERE tablename = 't'"); n != 0 {
		t.Fatal("the approved DROP did not run")
	}
}

// A CancelRequest ends a statement held in wait mode (57014), and the
// connection stays usable.
func TestCancelEndsWait(t *testing.T) {
	f := newFixture(t, withMode(app.ModeWait))
	f.direct("CREATE TABLE t (id int)")
	ctx := context.Background()
	c := f.connect("plain agent")
	done := make(chan error, 1)
	go func() {
		_, err := c.PgConn().Exec(ctx, "DROP TABLE t").ReadAll()
		done <- err
	}()
	f.awaitRecord(1)
	if err := c.PgConn().CancelRequest(ctx); err != nil {
		t.Fatal(err)
	}
	pgErr(t, <-done, CodeCanceled)
	if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatalf("connection unusable after the cancel: %v", err)
	}
}

// A CancelRequest for a running statement reaches the upstream backend.
func TestCancelReachesUpstream(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	c := f.connect("")
	done := make(chan error, 1)
	go func() {
		_, err := c.PgConn().Exec(ctx, "SELECT pg_sleep(60)").ReadAll()
		done <- err
	}()
	for f.count("SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)' AND state = 'active'") == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.PgConn().CancelRequest(ctx); err != nil {
		t.Fatal(err)
	}
	pgErr(t, <-done, "57014")
}

// SET application_name can ask for return mode after connecting.
func TestSetApplicationNameAsksReturnMode(t *testing.T) {
	f := newFixture(t, withMode(app.ModeWait))
	f.direct("CREATE TABLE t (id int)")
	ctx := context.Background()
	c := f.connect("plain agent")
	if _, err := c.Exec(ctx, "SET application_name = 'agent hoop-approval=return'"); err != nil {
		t.Fatal(err)
	}
	_, err := c.Exec(ctx, "DROP TABLE t")
	heldID(t, err)
}

// spend_approval_on: accepted: a Query whose INSERT completed and was
// committed before a later statement failed is spent, not given back: a
// resend would insert again.
func TestAcceptedPartlyRunIsSpent(t *testing.T) {
	f := newFixture(t, withSpend(ports.SpendOnAccepted), withApproval("inserts", inserts))
	f.direct("CREATE TABLE u (id int)")
	rc := f.raw()
	q := "INSERT INTO u VALUES (1); COMMIT; SELECT 1/0"
	got := ids(rc.q(q))
	if len(got) != 1 {
		t.Fatal("not held")
	}
	f.approve(got[0])
	rc.q(q)
	if st := f.status(got[0]); st != domain.StatusExecuted {
		t.Fatalf("approval %s after a resend that committed its INSERT, want EXECUTED", st)
	}
	rc.q(q)
	if n := f.count("SELECT count(*) FROM u"); n != 1 {
		t.Fatalf("one approval inserted %d rows", n)
	}
	// Refused before anything of it ran still gives it back.
	q2 := "BEGIN; INSERT INTO u_missing VALUES (1); COMMIT"
	got2 := ids(rc.q(q2))
	f.approve(got2[0])
	rc.q(q2)
	if st := f.status(got2[0]); st != domain.StatusApproved {
		t.Fatalf("approval %s after a resend whose INSERT failed, want APPROVED", st)
	}
}

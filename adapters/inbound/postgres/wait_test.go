package postgres

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// untilNotice reads up to the first NoticeResponse and returns it.
func (rc *rawClient) untilNotice() *pgproto3.NoticeResponse {
	rc.t.Helper()
	rc.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		m, err := rc.fe.Receive()
		if err != nil {
			rc.t.Fatalf("receive: %v", err)
		}
		if n, ok := m.(*pgproto3.NoticeResponse); ok {
			c := *n
			return &c
		}
	}
}

// settled waits until the fake Control Plane's read counter stops growing
// (several watcher intervals without a read) and returns it.
func (f *fixture) settled() int64 {
	f.t.Helper()
	last := f.cp.Gets.Load()
	for i := 0; i < 100; i++ {
		time.Sleep(300 * time.Millisecond) // six intervals of 50 ms
		now := f.cp.Gets.Load()
		if now == last {
			return now
		}
		last = now
	}
	f.t.Fatal("the Sidecar kept reading the approval")
	return 0
}

// Wait mode: the client is told why its statement hangs (a NoticeResponse
// naming the approval), then it hangs up. The wait ends at once: the
// approval is no longer read, a later approval stays APPROVED (not spent)
// and the DELETE never runs.
func TestClientHangsUpWhileWaiting(t *testing.T) {
	f := newFixture(t, withMode(app.ModeWait))
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7)")
	rc := f.raw()
	rc.send(&pgproto3.Query{String: "DELETE FROM t WHERE id = 7"})
	n := rc.untilNotice()
	id := f.awaitRecord(1)
	if n.Severity != "NOTICE" || n.Message != "statement held for approval "+id+"; waiting for a person to approve or reject it" ||
		!strings.Contains(n.Detail, id) {
		t.Fatalf("notice %+v", n)
	}
	reading := f.cp.Gets.Load()
	time.Sleep(200 * time.Millisecond)
	if f.cp.Gets.Load() == reading {
		t.Fatal("the Sidecar does not poll while the client waits (premise of this test)")
	}
	rc.c.Close()
	stopped := f.settled()
	f.approve(id)
	time.Sleep(500 * time.Millisecond) // ten intervals: an ongoing wait would have claimed it by now
	if got := f.cp.Gets.Load(); got != stopped {
		t.Fatalf("%d reads of the approval after the client hung up, want none", got-stopped)
	}
	if st := f.status(id); st != domain.StatusApproved {
		t.Fatalf("approval %s, want APPROVED: a client that hung up spends nothing", st)
	}
	if n := f.count("SELECT count(*) FROM t WHERE id = 7"); n != 1 {
		t.Fatal("the DELETE of a client that hung up ran")
	}
	// The approval still serves the identical resend.
	if _, err := f.connect("").Exec(context.Background(), "DELETE FROM t WHERE id = 7"); err != nil {
		t.Fatal(err)
	}
	if st := f.status(id); st != domain.StatusExecuted {
		t.Fatalf("after the resend %s, want EXECUTED", st)
	}
}

// Messages the client pipelines behind a waiting statement stay in order:
// once approved, the DELETE runs, then the SELECT sent after it.
func TestWaitKeepsPipelinedMessages(t *testing.T) {
	f := newFixture(t, withMode(app.ModeWait))
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7)")
	rc := f.raw()
	rc.send(&pgproto3.Query{String: "DELETE FROM t WHERE id = 7"}, &pgproto3.Query{String: "SELECT 42"})
	rc.untilNotice()
	f.approve(f.awaitRecord(1))
	if got := rc.untilReady(); got != "C[DELETE 1] ZI" {
		t.Fatalf("the approved DELETE: %q", got)
	}
	if got := rc.untilReady(); got != "C[SELECT 1] ZI" {
		t.Fatalf("the SELECT pipelined behind it: %q", got)
	}
}

// Over TLS: the hang-up watch ends cleanly (the session reads on after it)
// and a hang-up is seen too.
func TestWaitOverTLS(t *testing.T) {
	cert, key := writeCert(t, t.TempDir())
	f := newFixture(t, withMode(app.ModeWait), withTLS(cert, key))
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7), (8)")
	ctx := context.Background()
	url := strings.Replace(f.url(""), "sslmode=disable", "sslmode=require", 1)
	c, err := pgxConnect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.Exec(ctx, "DELETE FROM t WHERE id = 7")
		done <- err
	}()
	f.approve(f.awaitRecord(1))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the TLS session after the wait: %d rows, %v", n, err)
	}

	gone, err := pgxConnect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		gone.Exec(ctx, "DELETE FROM t WHERE id = 8")
	}()
	id := f.awaitRecord(2)
	gone.PgConn().Conn().Close() // hang up without a Terminate
	wg.Wait()
	f.settled()
	f.approve(id)
	time.Sleep(500 * time.Millisecond)
	if f.status(id) != domain.StatusApproved || f.count("SELECT count(*) FROM t WHERE id = 8") != 1 {
		t.Fatal("the statement of a TLS client that hung up ran")
	}
}

// psql in wait mode prints the notice while it waits, then the result.
func TestPsqlShowsWhyItWaits(t *testing.T) {
	f := newFixture(t, withMode(app.ModeWait))
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7)")
	out := make(chan string, 1)
	go func() { out <- f.psql("agent", "DELETE FROM t WHERE id = 7;\n") }()
	id := f.awaitRecord(1)
	f.approve(id)
	got := <-out
	want := "NOTICE:  statement held for approval " + id + "; waiting for a person to approve or reject it"
	if !strings.Contains(got, want) || !strings.Contains(got, "DELETE 1") {
		t.Fatalf("psql:\n%s\nwant %q and DELETE 1", got, want)
	}
}

package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/adapters/inbound/postgres/analyzer"
	"github.com/hoophq/sidecar/app"
)

// whole reports whether nothing of b is taken. It never waits (its context
// has ended), so it never delays a session's own reservation.
func whole(b *app.HeldBudget) bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := b.Reserve(ctx, b.Size())
	r.Release()
	return err == nil
}

// budgetTaken polls, with a bound only a hang reaches, until a session has
// taken some of the held-payload budget.
func budgetTaken(t *testing.T, b *app.HeldBudget) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if !whole(b) {
			return
		}
	}
	t.Fatal("no session took the held-payload budget")
}

// budgetWhole polls, with a bound only a hang reaches, until nothing of the
// held-payload budget is taken: the session that held a message gave it
// back.
func budgetWhole(t *testing.T, b *app.HeldBudget) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if whole(b) {
			return
		}
	}
	t.Fatal("the held-payload budget was not given back: the session still waits after its client left")
}

// A large text waiting for the parse budget (held by other connections)
// stops waiting when its client hangs up: the session ends and gives back
// what it held, nothing is filed, and the text is never forwarded.
func TestClientGoneWhileTextWaitsForAnalysis(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (v text)")
	f.direct("INSERT INTO t VALUES ('kept')")
	release := analyzer.HoldBudget()
	defer release()
	rc := f.raw()
	rc.send(&pgproto3.Query{String: bigDelete(256 << 10)})
	budgetTaken(t, f.l.Held()) // the text is read and waits for the parse budget
	rc.c.Close()               // the client hangs up while its text waits
	budgetWhole(t, f.l.Held())
	release()
	if n := len(f.cp.Records()); n != 0 {
		t.Fatalf("a text whose client left filed %d approval request(s)", n)
	}
	if n := f.count("SELECT count(*) FROM t"); n != 1 {
		t.Fatalf("%d rows: the text ran", n)
	}
}

package mssql

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/adapters/inbound/mssql/analyzer"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tds"
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
// held-payload budget is taken: the session that held a request gave it
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

// A large batch waiting for the parse budget (held by other connections)
// stops waiting when its client hangs up: the session ends and gives back
// the request it held, nothing is filed, and the batch never runs.
func TestClientGoneWhileTextWaitsForAnalysis(t *testing.T) {
	f := newFixture(t)
	release := analyzer.HoldBudget()
	defer release()
	c := dialRaw(t, f.addr)
	c.login(agentLogin())
	big := "DELETE FROM t WHERE v = '" + strings.Repeat("x", 256<<10) + "'"
	c.send(tds.PacketSQLBatch, (&tds.SQLBatch{Text: big}).Encode())
	budgetTaken(t, f.l.Held()) // the batch is read and waits for the parse budget
	c.conn.Close()             // the client hangs up while its batch waits
	budgetWhole(t, f.l.Held())
	release()
	if n := len(f.cp.Records()); n != 0 {
		t.Fatalf("a batch whose client left filed %d approval request(s)", n)
	}
	if f.ranCount(big) != 0 {
		t.Fatal("the batch ran")
	}
}

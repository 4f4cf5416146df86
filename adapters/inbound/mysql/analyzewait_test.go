package mysql

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
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
// held-payload budget is taken: the session that held a command gave it
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
// the command it held.
func TestClientGoneWhileTextWaitsForAnalysis(t *testing.T) {
	addr, l, _ := serveListener(t, upstreamStandIn(t), 64<<20)
	release := analyzer.HoldBudget()
	defer release()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "agent", "pw", "tcp", addr
	c, _ := mysql.NewConnector(cfg)
	db := sql.OpenDB(c)
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := conn.ExecContext(ctx, "DELETE FROM t WHERE v = '"+strings.Repeat("x", 256<<10)+"'")
		done <- err
	}()
	budgetTaken(t, l.Held()) // the text is read and waits for the parse budget
	cancel()                 // the driver closes the connection: the client hangs up
	<-done
	conn.Close()
	budgetWhole(t, l.Held())
}

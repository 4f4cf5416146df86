package mysql

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
	"github.com/hoophq/sidecar/internal/listenertest"
)

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
	listenertest.HeldTaken(t, l.Held()) // the text is read and waits for the parse budget
	cancel()                            // the driver closes the connection: the client hangs up
	<-done
	conn.Close()
	listenertest.HeldWhole(t, l.Held())
}

package mysql

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"database/sql"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	gmclient "github.com/go-mysql-org/go-mysql/client"
	gm "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/server"
	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/ports"
)

// upstreamStandIn starts an in-process MySQL server (go-mysql's server
// package) with user agent / pw (mysql_native_password) that answers every
// query with one row: 1.
func upstreamStandIn(t *testing.T) string { return upstreamStandInWith(t, oneHandler{}) }

// upstreamStandInWith is upstreamStandIn answering with h.
func upstreamStandInWith(t *testing.T, h server.Handler) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	srv := server.NewServer("8.0.36-unit", gm.DEFAULT_COLLATION_ID, gm.AUTH_NATIVE_PASSWORD, key, nil)
	auth := server.NewInMemoryAuthenticationHandler(gm.AUTH_NATIVE_PASSWORD)
	auth.AddUser("agent", "pw", gm.AUTH_NATIVE_PASSWORD)
	return listenertest.ServeTCP(t, func(c net.Conn) {
		if conn, err := srv.NewCustomizedConn(c, auth, h); err == nil {
			for conn.HandleCommand() == nil {
			}
		}
	})
}

type oneHandler struct{ server.EmptyHandler }

func (oneHandler) UseDB(string) error { return nil }
func (oneHandler) HandleQuery(string) (*gm.Result, error) {
	rs, err := gm.BuildSimpleTextResultset([]string{"one"}, [][]any{{1}})
	return gm.NewResult(rs), err
}

// serveListener serves a return-mode mysql listener in front of upstream,
// with a held-payload budget of held bytes; stop ends Serve.
func serveListener(t *testing.T, upstream string, held int64) (addr string, l *app.Listener, stop func()) {
	t.Helper()
	s := app.ListenerSettings{Name: "unit", Protocol: "mysql", Mode: app.ModeReturn, SpendOn: ports.SpendOnSent, Upstream: upstream,
		Approvals: []domain.ApprovalRule{{Name: "destructive", Match: domain.Match{Actions: []string{"DELETE"}}}}}
	if err := s.Approvals[0].Match.Compile(); err != nil {
		t.Fatal(err)
	}
	l = app.NewCore(app.CoreOptions{Sidecar: "unit", CP: fakecp.New(nil), Limits: app.Limits{HeldBytes: held}}).Listener(s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); New(nil).Serve(ctx, ln, l) }()
	t.Cleanup(func() { cancel(); l.EndDrain(); <-done })
	return ln.Addr().String(), l, cancel
}

// A command larger than the held-payload budget is refused unread with ERR
// 1041, and the connection goes on.
func TestCommandOverTheHeldBudget(t *testing.T) {
	addr, _, _ := serveListener(t, upstreamStandIn(t), 128<<10)
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "agent", "pw", "tcp", addr
	c, _ := mysql.NewConnector(cfg)
	db := sql.OpenDB(c)
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = conn.ExecContext(context.Background(), "SELECT '"+strings.Repeat("x", 200<<10)+"'")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1041 {
		t.Fatalf("a 200 KiB command with a 128 KiB budget: %v, want ERR 1041", err)
	}
	var one int
	if err := conn.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("the connection after the refusal: %v", err)
	}
}

// A stopped listener closes an idle connection with ERR 1053
// ER_SERVER_SHUTDOWN.
func TestDrainClosesIdleConnections(t *testing.T) {
	addr, _, stop := serveListener(t, upstreamStandIn(t), 0)
	c, err := gmclient.Connect(addr, "agent", "pw", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Execute("SELECT 1"); err != nil {
		t.Fatal(err)
	}
	stop()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	c.ResetSequence()
	p, err := c.ReadPacket()
	if err != nil || len(p) < 3 || p[0] != 0xff || binary.LittleEndian.Uint16(p[1:]) != gm.ER_SERVER_SHUTDOWN {
		t.Fatalf("an idle connection of a stopped listener read %q %v, want ERR 1053", p, err)
	}
}

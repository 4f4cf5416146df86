package mysql

import (
	"context"
	"database/sql"
	"net"
	"os"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// BenchmarkQueryThroughListener is one connection's SELECT 1 round trip
// through an in-process listener (a rule holds DELETE, so every query is
// analysed and decided) and directly, against HOOP_TEST_MYSQL_ADDR (the
// local MariaDB, 127.0.0.1:3306 root, by default). bench/mysql.sh is the
// end-to-end comparison with mysqlslap.
func BenchmarkQueryThroughListener(b *testing.B) {
	up := os.Getenv("HOOP_TEST_MYSQL_ADDR")
	if up == "" {
		up = "127.0.0.1:3306"
	}
	s := app.ListenerSettings{Name: "bench", Protocol: "mysql", Mode: app.ModeReturn, SpendOn: ports.SpendOnSent, Upstream: up,
		Approvals: []domain.ApprovalRule{{Name: "destructive", Match: domain.Match{Actions: []string{"DELETE"}}}}}
	if err := s.Approvals[0].Match.Compile(); err != nil {
		b.Fatal(err)
	}
	l := app.NewCore(app.CoreOptions{Sidecar: "bench", CP: fakecp.New(nil)}).Listener(s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go New(nil).Serve(ctx, ln, l)
	for _, c := range []struct{ name, addr string }{{"direct", up}, {"listener", ln.Addr().String()}} {
		b.Run(c.name, func(b *testing.B) {
			cfg := mysql.NewConfig()
			cfg.User, cfg.Net, cfg.Addr = "root", "tcp", c.addr
			conn, _ := mysql.NewConnector(cfg)
			db := sql.OpenDB(conn)
			defer db.Close()
			db.SetMaxOpenConns(1)
			var one int
			for b.Loop() {
				if err := db.QueryRow("SELECT 1").Scan(&one); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package mysql

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"net"
	"os"
	"testing"

	gm "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/internal/listenertest"
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

// BenchmarkQueryThroughSession is the listener's own CPU per allowed
// COM_QUERY without the network: read the command, analyse it (a cache hit),
// the gate (a rule holds DELETE; SELECT is allowed), forward it and relay a
// one-row result set, over in-memory connections. bench/mysql.sh measures
// the system calls and scheduling around it.
func BenchmarkQueryThroughSession(b *testing.B) {
	query := command(gm.COM_QUERY, "SELECT c FROM sbtest WHERE id = 500")
	var result []byte
	for i, p := range [][]byte{{1}, []byte("\x03def\x02db\x06sbtest\x06sbtest\x01c\x01c\x0c\x08\x00\xf0\x00\x00\x00\xfe\x00\x00\x00\x00\x00"),
		{0xfe, 0, 0, 2, 0}, append([]byte{60}, bytes.Repeat([]byte{'x'}, 60)...), {0xfe, 0, 0, 2, 0}} {
		result = append(result, packet(byte(i+1), p)...) // column count, definition, EOF, one row, EOF
	}
	client, up := &loopReader{b: query}, &loopReader{b: result}
	s := newSession(New(nil), listenertest.FuzzListener(b, "mysql", ports.SpendOnSent), slog.New(slog.DiscardHandler), listenertest.ReadConn{R: client}, listenertest.ReadConn{R: up})
	s.caps = relayedCaps &^ gm.CLIENT_DEPRECATE_EOF
	s.user, s.database, s.upstreamAddr = "root", "bench", "bench"
	b.ReportAllocs()
	for b.Loop() {
		p, seq, held, err := s.readCommand()
		if err != nil {
			b.Fatal(err)
		}
		if err := s.command(p, seq); err != nil {
			b.Fatal(err)
		}
		held.Release()
	}
}

// loopReader reads b over and over.
type loopReader struct {
	b   []byte
	off int
}

func (r *loopReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.b[r.off:])
		n += c
		r.off = (r.off + c) % len(r.b)
	}
	return n, nil
}

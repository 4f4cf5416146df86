package mysql

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// A command of 16 MiB or more comes in two or more physical packets; the
// listener's own answer to it (a denial, a budget refusal) carries the
// sequence id after the last of them, so the driver reads it as the answer
// and the connection stays usable (go-sql-driver: "unexpected sequence nr"
// and "bad connection" otherwise).
func TestAnswerToAMultiPacketCommandKeepsTheConnection(t *testing.T) {
	for _, tc := range []struct {
		name string
		held int64 // the held-payload budget; 0 = default
		want []uint16
	}{
		// Held as a DELETE, or refused as too large to check: either is the
		// listener's own answer.
		{"a DELETE the listener answers", 0, []uint16{errHeld.Code, errUncheckable.Code}},
		{"refused by the held-payload budget", 20 << 20, []uint16{errNoMemory.Code}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, _, _ := serveListener(t, upstreamStandIn(t), tc.held)
			cfg := mysql.NewConfig()
			cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "agent", "pw", "tcp", addr
			cfg.MaxAllowedPacket = 64 << 20
			c, _ := mysql.NewConnector(cfg)
			db := sql.OpenDB(c)
			defer db.Close()
			conn, err := db.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			// 17 MiB + 17 MiB: two physical packets, and over the 20 MiB
			// budget when the budget is the point.
			text := "DELETE FROM t WHERE v = '" + strings.Repeat("x", 17<<20) + "'"
			if tc.held != 0 {
				text = "SELECT '" + strings.Repeat("x", 24<<20) + "'"
			}
			_, err = conn.ExecContext(context.Background(), text)
			var me *mysql.MySQLError
			if !errors.As(err, &me) || !slices.Contains(tc.want, me.Number) {
				t.Fatalf("a %d MiB command: %v, want ERR %d", len(text)>>20, err, tc.want)
			}
			var one int
			if err := conn.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
				t.Fatalf("the connection after the answer: %v", err)
			}
		})
	}
}

package mysql

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// agentConn is one go-sql-driver connection as user agent to addr, with
// multi-statement texts allowed.
func agentConn(t *testing.T, addr string) *sql.Conn {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.MultiStatements = "agent", "pw", "tcp", addr, true
	c, _ := mysql.NewConnector(cfg)
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// A statement whose SQL the listener cannot see (EXECUTE of a PREPARE FROM
// @var, or of a name it never saw prepared) is UNKNOWN; a listener whose
// rules do not name UNKNOWN must refuse it (fail closed, 1235), not run it:
// @x may hold DELETE.
func TestUnknownStatementFailsClosed(t *testing.T) {
	addr, _, _ := serveListener(t, upstreamStandIn(t), 0)
	conn := agentConn(t, addr)
	ctx := context.Background()
	for _, q := range []string{
		"SET @x = 'DELETE FROM t'; PREPARE s FROM @x; EXECUTE s",
		"EXECUTE never_prepared",
	} {
		_, err := conn.ExecContext(ctx, q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1235 {
			t.Errorf("%q: %v, want ERR 1235 (cannot be checked)", q, err)
		}
	}
	if _, err := conn.ExecContext(ctx, "SELECT 1"); err != nil {
		t.Fatalf("the connection after the refusals: %v", err)
	}
}

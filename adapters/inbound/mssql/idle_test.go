package mssql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
	"github.com/hoophq/sidecar/internal/testlog"
)

// idleClosed is the listener's log line when the upstream ends an idle
// connection.
const idleClosed = "mssql upstream closed an idle connection; client connection closed"

// openPool is a go-mssqldb pool of at most one connection to addr.
func openPool(t *testing.T, addr string) *sql.DB {
	t.Helper()
	q := url.Values{"database": {"master"}, "encrypt": {"disable"}, "app name": {"idle"}}
	db, err := sql.Open("sqlserver", fmt.Sprintf("sqlserver://agent:pw@%s?%s", addr, q.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// kill ends the stand-in's session spid from a connection of its own, as
// an operator's KILL does.
func kill(t *testing.T, upstream string, spid int) {
	t.Helper()
	if _, err := openPool(t, upstream).Exec(fmt.Sprintf("KILL %d", spid)); err != nil {
		t.Fatalf("KILL %d: %v", spid, err)
	}
}

// waitLog waits (≤ 10 s) for line in the listener's log.
func waitLog(t *testing.T, logs *testlog.Buffer, line string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), line); {
		if time.Now().After(deadline) {
			t.Fatalf("the listener never logged %q; log:\n%s", line, logs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lastSPID is the @@SPID of the stand-in session that ran text last.
func lastSPID(t *testing.T, m *tdstest.Mini, text string) int {
	t.Helper()
	ex := m.Executed()
	for i := len(ex) - 1; i >= 0; i-- {
		if ex[i].Text == text {
			return 50 + ex[i].Conn
		}
	}
	t.Fatalf("the stand-in never ran %q", text)
	return 0
}

// When the upstream ends a connection while the client is between
// requests (KILL, a restart, a gateway's idle timeout), the listener
// closes the client's connection at once and logs it (issue 31 point 4):
// the client reads the end of the stream, not silence. An upstream that
// ends the connection during a request closes the client too, without
// the idle line.
func TestUpstreamEndingAnIdleConnectionClosesTheClient(t *testing.T) {
	m := &tdstest.Mini{Databases: []string{"hoopdb"}}
	addr, logs := loggedListener(t, m)
	up := m.Start(t)

	t.Run("idle", func(t *testing.T) {
		c := dialRaw(t, addr)
		c.login(agentLogin())
		c.send(tds.PacketSQLBatch, (&tds.SQLBatch{Headers: tds.TxHeaders(0, 1), Text: "SELECT 'idle'"}).Encode())
		for _, tok := range tokens(t, c.read().Data) {
			if tok.Type == tds.TokenError {
				t.Fatalf("SELECT through the listener failed: % X", tok.Body)
			}
		}
		kill(t, up, lastSPID(t, m, "SELECT 'idle'"))
		c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := c.conn.Read(make([]byte, 64))
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatal("the upstream ended the idle connection; the client's stayed open")
		}
		if !errors.Is(err, io.EOF) {
			t.Fatalf("the client read %d bytes, %v; want the end of the stream", n, err)
		}
		waitLog(t, logs, idleClosed)
	})

	t.Run("busy", func(t *testing.T) {
		before := strings.Count(logs.String(), idleClosed)
		c := dialRaw(t, addr)
		c.login(agentLogin())
		const wait = "WAITFOR DELAY '00:01:00'"
		c.send(tds.PacketSQLBatch, (&tds.SQLBatch{Headers: tds.TxHeaders(0, 1), Text: wait}).Encode())
		var spid int
		for deadline := time.Now().Add(10 * time.Second); spid == 0; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the stand-in never started the WAITFOR")
			}
			for _, e := range m.Executed() {
				if e.Text == wait {
					spid = 50 + e.Conn
				}
			}
		}
		kill(t, up, spid)
		c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.conn.Read(make([]byte, 64)); !errors.Is(err, io.EOF) {
			t.Fatalf("the upstream ended the connection during a request; the client read %v, want the end of the stream", err)
		}
		if n := strings.Count(logs.String(), idleClosed); n != before {
			t.Fatalf("a connection ended during a request was logged as idle:\n%s", logs)
		}
	})
}

// go-mssqldb's pool behaves through the listener as it does directly when
// the server ends its idle connection: the listener closes the client's
// connection before the next request (its log line is the event waited
// for), so the driver finds a dead connection (EOF or a reset) at once
// instead of waiting on an open socket; as directly, that one call fails (go-mssqldb
// retries only a request it could not send), the connection is dropped
// and the next call runs on a new one.
func TestPoolMovesOnAfterTheUpstreamEndedItsConnection(t *testing.T) {
	m := &tdstest.Mini{}
	addr, logs := loggedListener(t, m)
	up := m.Start(t)
	outcomes := func(target string, closed func()) (first error, spids [2]int) {
		pool := openPool(t, target)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := pool.QueryRowContext(ctx, "SELECT @@SPID").Scan(&spids[0]); err != nil {
			t.Fatal(err)
		}
		kill(t, up, spids[0])
		closed()
		first = pool.PingContext(ctx)
		if err := pool.QueryRowContext(ctx, "SELECT @@SPID").Scan(&spids[1]); err != nil {
			t.Fatalf("%s: the call after the one that saw the close: %v", target, err)
		}
		return first, spids
	}
	direct, directSPIDs := outcomes(up, func() {})
	through, throughSPIDs := outcomes(addr, func() { waitLog(t, logs, idleClosed) })
	t.Logf("first call after the close: directly %v; through the listener %v", direct, through)
	// The end of the stream or a reset, as the kernel has it: either way a
	// dead connection, never a wait for an answer.
	if direct == nil || through == nil || errors.Is(through, context.DeadlineExceeded) {
		t.Fatalf("the first call after the close through the listener: %v; directly: %v", through, direct)
	}
	if directSPIDs[0] == directSPIDs[1] || throughSPIDs[0] == throughSPIDs[1] {
		t.Fatalf("the pool kept the ended connection: sessions %v directly, %v through the listener", directSPIDs, throughSPIDs)
	}
}

package postgres

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
)

func withLimits(l app.Limits) option {
	return func(_ *app.ListenerSettings, o *app.CoreOptions) { o.Limits = l }
}

// bigDelete is a held DELETE whose text is about n bytes long.
func bigDelete(n int) string {
	return "DELETE FROM t WHERE v = '" + strings.Repeat("x", n) + "'"
}

// A statement larger than the whole held-payload budget is refused with
// 53200 before it is read, in the simple and the extended protocol; nothing
// is filed, and the same connection keeps working.
func TestBudgetRefusesStatementLargerThanBudget(t *testing.T) {
	f := newFixture(t, withLimits(app.Limits{HeldBytes: 1 << 20}))
	f.direct("CREATE TABLE t (v text)")
	ctx := context.Background()
	c := f.connect("")
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		_, err := c.Exec(ctx, bigDelete(2<<20), mode)
		pe := pgErr(t, err, CodeOutOfMemory)
		if !strings.Contains(pe.Message, "limits.held_bytes") || !strings.Contains(pe.Message, "smaller parts") {
			t.Errorf("%v: message %q", mode, pe.Message)
		}
		var one int
		if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("%v: the connection did not survive the refusal: %v", mode, err)
		}
	}
	if n := len(f.cp.Records()); n != 0 {
		t.Fatalf("a refused statement filed %d approval request(s)", n)
	}
}

// While other statements hold the whole budget, a large statement waits at
// most app.BudgetWait and is refused with 53200 ("resend it shortly"); once
// the budget is given back, the identical statement is read and held for
// approval as usual. Small statements never wait for the budget.
func TestBudgetFullRefusesThenAccepts(t *testing.T) {
	f := newFixture(t, withLimits(app.Limits{HeldBytes: 1 << 20}))
	f.direct("CREATE TABLE t (v text)")
	ctx := context.Background()
	c := f.connect("")
	others, err := f.l.Held().Reserve(ctx, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Exec(ctx, bigDelete(256<<10))
	if pe := pgErr(t, err, CodeOutOfMemory); !strings.Contains(pe.Message, "resend it shortly") {
		t.Errorf("message %q", pe.Message)
	}
	if _, err := c.Exec(ctx, "DELETE FROM t"); err == nil {
		t.Fatal("a small held DELETE ran")
	} else {
		heldID(t, err) // small statements take no budget: held for approval as usual
	}
	others.Release()
	_, err = c.Exec(ctx, bigDelete(256<<10))
	heldID(t, err)
	if again, err := f.l.Held().Reserve(ctx, 1<<20); err != nil {
		t.Fatalf("the listener kept budget after the statement was denied: %v", err)
	} else {
		again.Release()
	}
}

// Before login the listener reads at most 65535 bytes per message, as
// PostgreSQL does (PG_MAX_AUTH_TOKEN_LENGTH): a larger PasswordMessage ends
// the connection with FATAL 08P01 without being read or forwarded.
func TestPasswordMessageCappedBeforeLogin(t *testing.T) {
	up, got := passwordUpstream(t)
	addr, _ := serveAlone(t, up)
	c, _ := untilPasswordRequest(t, addr)
	defer c.Close()
	// Only the header and a little of the body: the listener must answer
	// without waiting for the rest.
	hdr := []byte{'p', 0, 1, 0, 0} // 65536 bytes
	c.Write(append(hdr, "secret"...))
	rest, _ := io.ReadAll(c)
	if !strings.Contains(string(rest), "08P01") || !strings.Contains(string(rest), "65535") {
		t.Fatalf("want FATAL 08P01 naming the 65535-byte cap, got %q", rest)
	}
	select {
	case typ := <-got:
		t.Fatalf("the upstream received a %q message", typ)
	case <-time.After(100 * time.Millisecond):
	}
}

// COPY data is streamed to the upstream unheld: a 1 MiB CopyData message
// passes while the held-payload budget is fully taken.
func TestCopyDataIsNotHeld(t *testing.T) {
	f := newFixture(t, withLimits(app.Limits{HeldBytes: 1 << 20}))
	f.direct("CREATE TABLE t (v text)")
	all, err := f.l.Held().Reserve(context.Background(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer all.Release()
	rc := f.raw()
	rc.send(&pgproto3.Query{String: "COPY t FROM STDIN"})
	rc.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		m, err := rc.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.(*pgproto3.CopyInResponse); ok {
			break
		}
	}
	rc.send(&pgproto3.CopyData{Data: []byte(strings.Repeat("x", 1<<20) + "\n")}, &pgproto3.CopyDone{})
	if got := rc.untilReady(); got != "C[COPY 1] ZI" {
		t.Fatalf("COPY of a 1 MiB row: %s", got)
	}
	if n := f.count("SELECT count(*) FROM t WHERE length(v) = $1", 1<<20); n != 1 {
		t.Fatalf("%d rows of 1 MiB arrived", n)
	}
}

package mssql

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/tds"
)

// The client logs in upstream as itself: the upstream sees go-mssqldb's
// user, password, database and app name; the listener holds none of them.
func TestLoginRelaysTheClientsCredentials(t *testing.T) {
	f := newFixture(t)
	c := f.conn("my-agent")
	var one int
	if err := c.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %d %v", one, err)
	}
	l := f.up.Logins()
	if len(l) != 1 || l[0].UserName != "agent" || l[0].Password != "S3cret!pw" || l[0].Database != "hoopdb" || l[0].AppName != "my-agent" {
		t.Fatalf("upstream LOGIN7: %+v", l)
	}
}

// Return mode: a held DELETE is denied with the approval id (ERROR 229);
// once approved, the identical resend runs once upstream; the next send
// files a new approval.
func TestHeldDeleteApprovedRunsOnce(t *testing.T) {
	f := newFixture(t)
	c := f.conn(returnApp)
	ctx := context.Background()
	const q = "DELETE FROM t WHERE id = 1"
	_, err := c.ExecContext(ctx, q)
	id := heldID(t, err)
	me := sqlErr(t, err, 229)
	if me.Class != 14 || me.State != 120 || !strings.HasPrefix(me.Message, "statement held for human approval") {
		t.Fatalf("denial: class %d state %d %q", me.Class, me.State, me.Message)
	}
	if f.ranCount(q) != 0 {
		t.Fatal("the held DELETE reached the upstream")
	}
	_, err = c.ExecContext(ctx, q)
	if again := heldID(t, err); again != id {
		t.Fatalf("a resend while pending filed %s, want %s", again, id)
	}
	f.approve(id)
	if _, err := c.ExecContext(ctx, q); err != nil {
		t.Fatalf("the approved resend: %v", err)
	}
	if n := f.ranCount(q); n != 1 {
		t.Fatalf("the upstream ran the approved DELETE %d times", n)
	}
	_, err = c.ExecContext(ctx, q)
	if next := heldID(t, err); next == id {
		t.Fatal("the send after the approved one reused the spent approval")
	}
	var one int
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("the connection after the denials: %v", err)
	}
}

// The MCP variant of the denial text names approval_wait.
func TestDenialMCPText(t *testing.T) {
	f := newFixture(t, withMCP())
	_, err := f.conn(returnApp).ExecContext(context.Background(), "DELETE FROM t")
	me := sqlErr(t, err, 229)
	if !strings.HasPrefix(me.Message, "approval ap-") || !strings.Contains(me.Message, "approval_wait") {
		t.Fatalf("MCP denial %q", me.Message)
	}
}

// A batch with one held statement runs nothing of it.
func TestBatchWithOneHeldStatementRunsNothing(t *testing.T) {
	f := newFixture(t)
	c := f.conn(returnApp)
	const q = "INSERT INTO t VALUES (1); DELETE FROM t; SELECT 1"
	_, err := c.ExecContext(context.Background(), q)
	heldID(t, err)
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.ran) != 0 {
		t.Fatalf("the upstream ran %q", f.ran)
	}
}

// sp_executesql: the parameters are part of the statement: 1, 2, 1 file
// two approvals, the third send reusing the first.
func TestExecuteSQLParametersMakeApprovals(t *testing.T) {
	f := newFixture(t)
	c := f.conn(returnApp)
	var got []string
	for _, v := range []int{1, 2, 1} {
		_, err := c.ExecContext(context.Background(), "DELETE FROM t WHERE id = @p1", v)
		got = append(got, heldID(t, err))
	}
	if got[0] == got[1] || got[0] != got[2] || len(f.cp.Records()) != 2 {
		t.Fatalf("approvals %v, %d filed; want two, the third send reusing the first", got, len(f.cp.Records()))
	}
	if r := f.cp.Records()[0]; !strings.Contains(r.Statement, "DELETE FROM t WHERE id = @p1") || !strings.Contains(r.Statement, "@p1 = 1") {
		t.Fatalf("the approver sees %q", r.Statement)
	}
	f.approve(got[1])
	if _, err := c.ExecContext(context.Background(), "DELETE FROM t WHERE id = @p1", 2); err != nil {
		t.Fatalf("approved sp_executesql: %v", err)
	}
	if n := f.ranCount("DELETE FROM t WHERE id = @p1"); n != 1 {
		t.Fatalf("upstream ran it %d times", n)
	}
}

// The same text in another database is another approval.
func TestDatabaseIsPartOfTheStatement(t *testing.T) {
	f := newFixture(t)
	c := f.conn(returnApp)
	ctx := context.Background()
	_, err := c.ExecContext(ctx, "DELETE FROM t")
	first := heldID(t, err)
	if _, err := c.ExecContext(ctx, "USE otherdb"); err != nil {
		t.Fatal(err)
	}
	_, err = c.ExecContext(ctx, "DELETE FROM t")
	if second := heldID(t, err); second == first {
		t.Fatal("the same text in another database reused the approval")
	}
	if r := f.cp.Records(); !strings.Contains(r[1].Statement, "-- database: otherdb") {
		t.Fatalf("the approver sees %q", r[1].Statement)
	}
}

// A denial inside a transaction dooms it: later requests are refused with
// 3930 until ROLLBACK, and a COMMIT rolls it back (3930) so nothing of it
// is committed.
func TestDenialDoomsTheTransaction(t *testing.T) {
	f := newFixture(t)
	c := f.conn(returnApp)
	ctx := context.Background()
	for _, end := range []string{"COMMIT", "ROLLBACK"} {
		if _, err := c.ExecContext(ctx, "BEGIN TRAN"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (1)"); err != nil {
			t.Fatal(err)
		}
		_, err := c.ExecContext(ctx, "DELETE FROM t")
		heldID(t, err)
		_, err = c.ExecContext(ctx, "INSERT INTO t VALUES (2)")
		sqlErr(t, err, 3930)
		if f.ranCount("INSERT INTO t VALUES (2)") != 0 {
			t.Fatal("a statement after the denial ran")
		}
		_, err = c.ExecContext(ctx, end)
		if end == "COMMIT" {
			sqlErr(t, err, 3930)
			if f.ranCount("COMMIT") != 0 || f.ranCount("IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION") != 1 {
				t.Fatalf("COMMIT of a doomed transaction: upstream ran %q", f.ran)
			}
		} else if err != nil {
			t.Fatalf("ROLLBACK: %v", err)
		}
		if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (3)"); err != nil {
			t.Fatalf("after %s: %v", end, err)
		}
	}
}

// go-mssqldb's context cancel sends Attention: it reaches the upstream,
// whose DONE(ATTN) comes back, and the connection serves the next query.
func TestAttentionReachesTheUpstream(t *testing.T) {
	f := newFixture(t)
	c := f.conn("agent")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-f.wait; cancel() }()
	_, err := c.ExecContext(ctx, "WAITFOR DELAY '00:00:10'")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled batch: %v", err)
	}
	var one int
	if err := c.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("after the Attention: %d %v", one, err)
	}
	attn := 0
	for _, m := range f.up.Received() {
		if tds.IsAttention(m) {
			attn++
		}
	}
	if attn != 1 {
		t.Fatalf("the upstream received %d Attention messages, want 1", attn)
	}
}

// Wait mode: an Attention while the statement waits for approval ends the
// wait; the listener answers DONE(ATTN) itself and nothing reaches the
// upstream; the approval stays pending.
func TestAttentionEndsTheWait(t *testing.T) {
	f := newFixture(t)
	c := f.conn("agent")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(f.cp.Records()) == 0 {
			select {
			case <-ctx.Done():
				return
			default:
			}
		}
		cancel()
	}()
	_, err := c.ExecContext(ctx, "DELETE FROM t")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	var one int
	if err := c.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("after the Attention: %d %v", one, err)
	}
	for _, m := range f.up.Received() {
		if tds.IsAttention(m) {
			t.Fatal("the upstream received an Attention for a statement it never had")
		}
	}
	if f.ranCount("DELETE FROM t") != 0 {
		t.Fatal("the cancelled DELETE ran")
	}
	if r := f.cp.Records(); len(r) != 1 || r[0].Status != domain.StatusPending {
		t.Fatalf("approval after the cancel: %+v", r)
	}
}

// A pooled connection reused by database/sql is reset (RESETCONNECTION):
// the server goes back to the login's database, and so does the listener's
// fingerprint.
func TestResetConnectionGoesBackToTheLoginDatabase(t *testing.T) {
	f := newFixture(t)
	q := url.Values{"database": {"hoopdb"}, "encrypt": {"disable"}, "app name": {returnApp}}
	pool, err := sql.Open("sqlserver", "sqlserver://agent:pw@"+f.addr+"?"+q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	pool.SetMaxOpenConns(1)
	ctx := context.Background()
	_, err = pool.ExecContext(ctx, "DELETE FROM t")
	first := heldID(t, err)
	if _, err := pool.ExecContext(ctx, "USE otherdb"); err != nil {
		t.Fatal(err)
	}
	// The pool resets the connection before this one: hoopdb again.
	_, err = pool.ExecContext(ctx, "DELETE FROM t")
	if again := heldID(t, err); again != first {
		t.Fatalf("after a reset the same DELETE filed %s, want %s (the login's database)", again, first)
	}
}

// A text the analyzer cannot read is UNKNOWN: held for a person when a
// rule covers UNKNOWN, refused unchecked (229, state 124) otherwise; never
// run.
func TestUnreadableTextFailsClosed(t *testing.T) {
	const q = "DELETE FROM t WHERE (("
	f := newFixture(t)
	_, err := f.conn(returnApp).ExecContext(context.Background(), q)
	heldID(t, err)
	f2 := newFixture(t, withActions("DROP"))
	_, err = f2.conn(returnApp).ExecContext(context.Background(), q)
	if me := sqlErr(t, err, 229); me.State != 124 || !strings.Contains(me.Message, "cannot be checked") {
		t.Fatalf("unreadable text without a rule on UNKNOWN: state %d %q", me.State, me.Message)
	}
	if f.ranCount(q)+f2.ranCount(q) != 0 {
		t.Fatal("an unreadable text ran")
	}
}

// An answer with a sql_variant column (SERVERPROPERTY) is read through:
// the database change after it in the same batch is followed.
func TestVariantColumnKeepsTheRelayReading(t *testing.T) {
	f := newFixture(t)
	cols := []tds.Column{{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeVariant, Size: 8016}, Name: "v"}}
	answer := (&tds.ColMetadata{Columns: cols}).Append(nil)
	answer = (&tds.Row{Values: [][]byte{{tds.TypeInt4, 0, 16, 0, 0, 0}}}).Append(answer, cols)
	answer = (&tds.Done{Status: tds.DoneCount | tds.DoneMore, RowCount: 1}).Append(answer)
	answer = tds.EnvString(tds.EnvDatabase, "otherdb", "hoopdb").Append(answer)
	answer = (&tds.Done{}).Append(answer)
	next := f.onBatch
	f.up.OnBatch = func(b *tds.SQLBatch) []byte {
		if strings.HasPrefix(b.Text, "SELECT SERVERPROPERTY") {
			return answer
		}
		return next(b)
	}
	c := f.conn(returnApp)
	var v int
	if err := c.QueryRowContext(context.Background(), "SELECT SERVERPROPERTY('EngineEdition'); USE otherdb").Scan(&v); err != nil || v != 16 {
		t.Fatalf("sql_variant through the listener: %d %v", v, err)
	}
	_, err := c.ExecContext(context.Background(), "DELETE FROM t")
	heldID(t, err)
	if r := f.cp.Records(); !strings.Contains(r[0].Statement, "-- database: otherdb") {
		t.Fatalf("the approver sees %q", r[0].Statement)
	}
}

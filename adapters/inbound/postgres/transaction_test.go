package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// On the wire (simple protocol): a denial inside BEGIN answers 'E', the
// upstream itself then refuses the next statement with 25P02 and answers
// COMMIT with ROLLBACK, exactly as after an error of its own.
func TestDenialFailsTransactionOnTheWire(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7)")
	rc := f.raw()
	steps := []struct{ send, want string }{
		{"BEGIN", "C[BEGIN] ZT"},
		{"INSERT INTO t VALUES (10)", "C[INSERT 0 1] ZT"},
		{"DELETE FROM t WHERE id = 7", "ZE"},
		{"INSERT INTO t VALUES (11)", "E[25P02 current transaction is aborted, commands ignored until end of transaction block] ZE"},
		{"COMMIT", "C[ROLLBACK] ZI"},
	}
	for _, s := range steps {
		got := rc.q(s.send)
		if !strings.HasSuffix(got, s.want) {
			t.Fatalf("%s: got %q, want it to end with %q", s.send, got, s.want)
		}
	}
	if n := f.count("SELECT count(*) FROM t"); n != 1 {
		t.Fatalf("%d rows, want only 7", n)
	}
	// Outside a transaction block nothing changes: the next statement runs.
	if got := rc.q("DELETE FROM t WHERE id = 7"); !strings.Contains(got, "E[42501") || !strings.HasSuffix(got, "ZI") {
		t.Fatalf("denial outside a transaction: %q, want 42501 then ZI", got)
	}
	if got := rc.q("INSERT INTO t VALUES (12)"); got != "C[INSERT 0 1] ZI" {
		t.Fatalf("statement after a denial outside a transaction: %q", got)
	}
}

// Extended protocol, pipeline mode inside a transaction: a held pipeline
// fails the transaction; COMMIT rolls back what ran before it.
func TestHeldPipelineFailsTransaction(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7)")
	c := f.connect(returnApp).PgConn()
	ctx := context.Background()
	if _, err := c.Exec(ctx, "BEGIN; INSERT INTO t VALUES (50)").ReadAll(); err != nil {
		t.Fatal(err)
	}
	heldID(t, sendPipeline(t, c, []byte("7")))
	if c.TxStatus() != 'E' {
		t.Fatalf("status %q after a held pipeline inside BEGIN, want E", c.TxStatus())
	}
	res, err := c.Exec(ctx, "COMMIT").ReadAll()
	if err != nil || len(res) != 1 || res[0].CommandTag.String() != "ROLLBACK" {
		t.Fatalf("COMMIT: %v %v, want ROLLBACK", res, err)
	}
	if n := f.count("SELECT count(*) FROM t WHERE id IN (50, 100)"); n != 0 {
		t.Fatalf("%d rows of the failed transaction were committed", n)
	}

	// With a Flush: the part before it ran inside the transaction; the held
	// part after it fails the transaction all the same.
	if _, err := c.Exec(ctx, "BEGIN").ReadAll(); err != nil {
		t.Fatal(err)
	}
	p := c.StartPipeline(ctx)
	p.SendQueryParams("INSERT INTO t VALUES (200)", nil, nil, nil, nil)
	p.SendFlushRequest()
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	r, err := p.GetResults()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.(*pgconn.ResultReader).Close(); err != nil {
		t.Fatal(err)
	}
	p.SendQueryParams("DELETE FROM t WHERE id = $1", [][]byte{[]byte("7")}, nil, nil, nil)
	if err := p.Sync(); err != nil {
		t.Fatal(err)
	}
	heldID(t, drainPipeline(t, p))
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if c.TxStatus() != 'E' {
		t.Fatalf("status %q, want E", c.TxStatus())
	}
	if res, err := c.Exec(ctx, "COMMIT").ReadAll(); err != nil || res[0].CommandTag.String() != "ROLLBACK" {
		t.Fatalf("COMMIT: %v, want ROLLBACK", err)
	}
	if n := f.count("SELECT count(*) FROM t WHERE id = 200"); n != 0 {
		t.Fatal("the INSERT before the Flush was committed with the failed transaction")
	}
	if n := f.count("SELECT count(*) FROM t WHERE id = 7"); n != 1 {
		t.Fatal("the held DELETE ran")
	}
}

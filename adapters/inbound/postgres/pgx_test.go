package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hoophq/sidecar/domain"
)

// pgErr returns err as a *pgconn.PgError or fails the test.
func pgErr(t *testing.T, err error, code string) *pgconn.PgError {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("want a PostgreSQL error %s, got %v", code, err)
	}
	if pe.Code != code {
		t.Fatalf("SQLSTATE %s (%s), want %s", pe.Code, pe.Message, code)
	}
	return pe
}

func heldID(t *testing.T, err error) string {
	t.Helper()
	pe := pgErr(t, err, CodeHeld)
	got := ids(pe.Message)
	if len(got) != 1 {
		t.Fatalf("no approval id in %q", pe.Message)
	}
	return got[0]
}

// Extended protocol: the statement is the query text plus its parameters.
func TestPgxParametersMakeDifferentApprovals(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int PRIMARY KEY)")
	f.direct("INSERT INTO t VALUES (7), (8)")
	ctx := context.Background()
	c := f.connect(returnApp)

	_, err := c.Exec(ctx, "DELETE FROM t WHERE id = $1", 7)
	id7 := heldID(t, err)
	_, err = c.Exec(ctx, "DELETE FROM t WHERE id = $1", 8)
	id8 := heldID(t, err)
	if id7 == id8 {
		t.Fatalf("parameters 7 and 8 share approval %s", id7)
	}
	if rec := f.cp.Records()[0]; rec.Statement != "DELETE FROM t WHERE id = $1\n-- parameters: $1 = 7" {
		t.Fatalf("approver sees %q", rec.Statement)
	}
	_, err = c.Exec(ctx, "DELETE FROM t WHERE id = $1", 7)
	if again := heldID(t, err); again != id7 {
		t.Fatalf("the same statement filed a new approval %s, want %s reused", again, id7)
	}
	if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatalf("connection unusable after a denial: %v", err)
	}

	f.approve(id7)
	_, err = c.Exec(ctx, "DELETE FROM t WHERE id = $1", 8)
	if heldID(t, err) != id8 {
		t.Fatal("approving 7 changed 8's approval")
	}
	// The resend on another connection (another prepared statement name) runs.
	c2 := f.connect(returnApp)
	tag, err := c2.Exec(ctx, "DELETE FROM t WHERE id = $1", 7)
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("approved resend: %v %v", tag, err)
	}
	if n := f.count("SELECT count(*) FROM t"); n != 1 {
		t.Fatalf("%d rows left, want only 8", n)
	}
	if st := f.status(id8); st != domain.StatusPending {
		t.Fatalf("approval of 8 is %s", st)
	}
	_, err = c2.Exec(ctx, "DELETE FROM t WHERE id = $1", 7)
	if id := heldID(t, err); id == id7 {
		t.Fatal("the spent approval was used twice")
	}
}

// The simple protocol through pgx: parameters are interpolated into the text.
func TestPgxSimpleProtocol(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7)")
	ctx := context.Background()
	c := f.connect(returnApp)
	_, err := c.Exec(ctx, "DELETE FROM t WHERE id = $1", pgx.QueryExecModeSimpleProtocol, 7)
	id := heldID(t, err)
	f.approve(id)
	if _, err := c.Exec(ctx, "DELETE FROM t WHERE id = $1", pgx.QueryExecModeSimpleProtocol, 7); err != nil {
		t.Fatal(err)
	}
	if n := f.count("SELECT count(*) FROM t"); n != 0 {
		t.Fatal("approved simple-protocol DELETE did not run")
	}
}

// Several statements in one Query message: if any is held, none runs.
func TestSimpleQuerySeveralStatementsNoneRuns(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7)")
	ctx := context.Background()
	c := f.connect(returnApp)
	_, err := c.PgConn().Exec(ctx, "INSERT INTO t VALUES (300); DELETE FROM t WHERE id = 7; INSERT INTO t VALUES (301)").ReadAll()
	id := heldID(t, err)
	if n := f.count("SELECT count(*) FROM t"); n != 1 {
		t.Fatalf("%d rows: part of a held Query message ran", n)
	}
	f.approve(id)
	if _, err := c.PgConn().Exec(ctx, "INSERT INTO t VALUES (300); DELETE FROM t WHERE id = 7; INSERT INTO t VALUES (301)").ReadAll(); err != nil {
		t.Fatal(err)
	}
	if n := f.count("SELECT count(*) FROM t WHERE id IN (300, 301)"); n != 2 {
		t.Fatal("approved multi-statement Query did not run whole")
	}
}

// Inside BEGIN, a held statement (extended protocol) fails the transaction
// as any error does: status 'E', the next statement gets 25P02 from the
// upstream itself, COMMIT rolls back the work before the denial.
func TestHeldInsideTransactionFailsIt(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7)")
	ctx := context.Background()
	c := f.connect(returnApp)
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO t VALUES (9)"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, "DELETE FROM t WHERE id = $1", 7)
	heldID(t, err)
	if st := c.PgConn().TxStatus(); st != 'E' {
		t.Fatalf("ReadyForQuery status %q after the denial, want 'E' (failed transaction)", st)
	}
	_, err = tx.Exec(ctx, "INSERT INTO t VALUES ($1)", 10)
	pgErr(t, err, "25P02")
	if err := tx.Commit(ctx); !errors.Is(err, pgx.ErrTxCommitRollback) {
		t.Fatalf("COMMIT after the denial: %v, want the server's ROLLBACK (pgx.ErrTxCommitRollback)", err)
	}
	if n := f.count("SELECT count(*) FROM t"); n != 1 {
		t.Fatalf("%d rows after COMMIT, want only 7: the transaction must roll back", n)
	}
	if st := c.PgConn().TxStatus(); st != 'I' {
		t.Fatalf("status %q after COMMIT, want I", st)
	}
	// Outside a transaction a denial changes nothing: the next statement runs
	// and commits on its own.
	_, err = c.Exec(ctx, "DELETE FROM t WHERE id = $1", 7)
	heldID(t, err)
	if st := c.PgConn().TxStatus(); st != 'I' {
		t.Fatalf("status %q after a denial outside a transaction, want I", st)
	}
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES ($1)", 11); err != nil {
		t.Fatal(err)
	}
	if n := f.count("SELECT count(*) FROM t WHERE id = 11"); n != 1 {
		t.Fatal("a statement after a denial outside a transaction did not run")
	}
}

// The psql run, ON_ERROR_STOP=0: BEGIN; INSERT 10; DELETE (held);
// INSERT 11; COMMIT. As on PostgreSQL after any error, INSERT 11 gets 25P02,
// COMMIT answers ROLLBACK, and neither INSERT is in the table.
func TestPsqlHeldInsideTransactionFailsIt(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7)")
	out := f.psql(returnApp, "BEGIN;\nINSERT INTO t VALUES (10);\nDELETE FROM t WHERE id = 7;\nINSERT INTO t VALUES (11);\nCOMMIT;\n")
	for _, want := range []string{"statement held for human approval",
		"ERROR:  current transaction is aborted, commands ignored until end of transaction block", "ROLLBACK"} {
		if !strings.Contains(out, want) {
			t.Fatalf("psql does not show %q:\n%s", want, out)
		}
	}
	if n := f.count("SELECT count(*) FROM t WHERE id IN (10, 11)"); n != 0 {
		t.Fatalf("%d of the INSERTs were committed around the held DELETE:\n%s", n, out)
	}
	if n := f.count("SELECT count(*) FROM t WHERE id = 7"); n != 1 {
		t.Fatal("the held DELETE ran")
	}
}

// PREPARE in SQL, then EXECUTE: the EXECUTE runs the prepared DELETE and is held.
func TestPsqlExecuteOfPreparedDeleteIsHeld(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7)")
	out := f.psql(returnApp, "PREPARE d(int) AS DELETE FROM t WHERE id = $1;\nEXECUTE d(7);\n")
	if !strings.Contains(out, "PREPARE") || len(ids(out)) != 1 {
		t.Fatalf("psql:\n%s", out)
	}
	if n := f.count("SELECT count(*) FROM t"); n != 1 {
		t.Fatal("EXECUTE of a prepared DELETE ran without approval")
	}
	rec := f.cp.Records()[0]
	if !strings.Contains(rec.Statement, "EXECUTE d(7)") || !strings.Contains(rec.Statement, "DELETE FROM t") {
		t.Fatalf("approver sees %q", rec.Statement)
	}
}

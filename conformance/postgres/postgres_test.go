package postgres

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// psql with application_name=demo hoop-approval=return: DROP TABLE t is
// denied with the spec's text and an approval id, the session stays open,
// SELECT 1 works; after approval with the Control Plane's CLI the identical
// DROP TABLE t runs; sending it again gets a new approval id.
func TestPsqlDropTableApprovedWithCLI(t *testing.T) {
	e := newEnv(t)
	addr := e.sidecar("sent")
	e.direct("CREATE TABLE t (id int)")

	out := e.psql(addr, returnApp, "DROP TABLE t;\nSELECT 1 AS alive;\n")
	if !strings.Contains(out, "ERROR:  statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval ") {
		t.Fatalf("psql did not print the spec's text:\n%s", out)
	}
	if !strings.Contains(out, "alive") || !strings.Contains(out, "(1 row)") {
		t.Fatalf("SELECT 1 on the same session did not work:\n%s", out)
	}
	ids := approvalIDs(out)
	if len(ids) != 1 {
		t.Fatalf("want one approval id:\n%s", out)
	}
	if r := e.cp.Review(t, ids[0]); r.Status != "PENDING" || r.Statement != "DROP TABLE t;" || r.ClientIdentity != "postgres" {
		t.Fatalf("approver sees %+v", r)
	}
	e.cp.Approve(t, ids[0])

	out = e.psql(addr, returnApp, "DROP TABLE t;\n")
	if !strings.Contains(out, "DROP TABLE") || strings.Contains(out, "ERROR") {
		t.Fatalf("the approved resend did not run:\n%s", out)
	}
	if e.count("SELECT count(*) FROM pg_tables WHERE tablename = 't'") != 0 {
		t.Fatal("table t is still there")
	}
	if st := e.cp.Review(t, ids[0]).Status; st != "EXECUTED" {
		t.Fatalf("approval %s, want EXECUTED", st)
	}
	out = e.psql(addr, returnApp, "DROP TABLE t;\n")
	again := approvalIDs(out)
	if len(again) != 1 || again[0] == ids[0] {
		t.Fatalf("sending it again must get a new approval id:\n%s", out)
	}
}

// pgx extended protocol: DELETE … WHERE id = $1 with 7 and with 8 are two
// approvals; approving the first lets exactly that one run. Inside BEGIN a
// held statement fails the transaction as any error does (status E, the
// upstream's 25P02 for the next statement, COMMIT rolls back).
func TestPgxExtendedParametersAndTransactions(t *testing.T) {
	e := newEnv(t)
	addr := e.sidecar("sent")
	e.direct("CREATE TABLE t (id int PRIMARY KEY)")
	e.direct("INSERT INTO t VALUES (7), (8)")
	ctx := context.Background()
	c := e.connect(addr, returnApp)

	_, err := c.Exec(ctx, "DELETE FROM t WHERE id = $1", 7)
	id7 := heldID(t, err)
	_, err = c.Exec(ctx, "DELETE FROM t WHERE id = $1", 8)
	id8 := heldID(t, err)
	if id7 == id8 {
		t.Fatal("parameters 7 and 8 got the same approval")
	}
	if r := e.cp.Review(t, id7); !strings.Contains(r.Statement, "$1 = 7") {
		t.Fatalf("approver does not see the parameter: %q", r.Statement)
	}
	e.cp.Approve(t, id7)
	if _, err := c.Exec(ctx, "DELETE FROM t WHERE id = $1", 8); heldID(t, err) != id8 {
		t.Fatal("8 is no longer held by its own approval")
	}
	if tag, err := c.Exec(ctx, "DELETE FROM t WHERE id = $1", 7); err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("approved DELETE of 7: %v %v", tag, err)
	}
	if e.count("SELECT count(*) FROM t WHERE id = 8") != 1 || e.count("SELECT count(*) FROM t") != 1 {
		t.Fatal("more than the approved statement ran")
	}

	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO t VALUES (9)"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, "DELETE FROM t WHERE id = $1", 8)
	heldID(t, err)
	if st := c.PgConn().TxStatus(); st != 'E' {
		t.Fatalf("ReadyForQuery status %q after the held statement, want E", st)
	}
	_, err = tx.Exec(ctx, "INSERT INTO t VALUES ($1)", 10)
	pgErr(t, err, "25P02")
	if err := tx.Commit(ctx); !errors.Is(err, pgx.ErrTxCommitRollback) {
		t.Fatalf("COMMIT: %v, want the server's ROLLBACK", err)
	}
	if e.count("SELECT count(*) FROM t WHERE id IN (9, 10)") != 0 || e.count("SELECT count(*) FROM t WHERE id = 8") != 1 {
		t.Fatal("COMMIT of a transaction with a denial kept part of its work")
	}
}

// pgx pipeline mode: statements up to Sync are one unit; the held DELETE
// keeps the INSERT before it from running; the identical resend runs both.
func TestPgxPipeline(t *testing.T) {
	e := newEnv(t)
	addr := e.sidecar("sent")
	e.direct("CREATE TABLE t (id int)")
	e.direct("INSERT INTO t VALUES (7)")
	c := e.connect(addr, returnApp).PgConn()
	send := func() error {
		p := c.StartPipeline(context.Background())
		p.SendQueryParams("INSERT INTO t VALUES (100)", nil, nil, nil, nil)
		p.SendQueryParams("DELETE FROM t WHERE id = $1", [][]byte{[]byte("7")}, nil, nil, nil)
		if err := p.Sync(); err != nil {
			return err
		}
		var first error
		for {
			res, err := p.GetResults()
			if err != nil {
				if first == nil {
					first = err
				}
				continue
			}
			if rr, ok := res.(*pgconn.ResultReader); ok {
				rr.Close()
			}
			if _, ok := res.(*pgconn.PipelineSync); ok || res == nil {
				break
			}
		}
		if err := p.Close(); err != nil && first == nil {
			first = err
		}
		return first
	}
	id := heldID(t, send())
	if e.count("SELECT count(*) FROM t WHERE id = 100") != 0 {
		t.Fatal("part of the held pipeline ran")
	}
	e.cp.Approve(t, id)
	if err := send(); err != nil {
		t.Fatal(err)
	}
	if e.count("SELECT count(*) FROM t WHERE id = 100") != 1 || e.count("SELECT count(*) FROM t WHERE id = 7") != 0 {
		t.Fatal("the approved pipeline did not run whole")
	}
}

// Two Sidecar processes (replicas of one Sidecar), 20 connections sending
// the approved identical INSERT at once: the table gets exactly one row.
func TestTwoSidecarsTwentyConnectionsOneRow(t *testing.T) {
	e := newEnv(t)
	a, b := e.sidecar("sent"), e.sidecar("sent")
	e.direct("CREATE TABLE once (v int)")
	ctx := context.Background()
	_, err := e.connect(a, returnApp).Exec(ctx, "INSERT INTO once VALUES (1)")
	e.cp.Approve(t, heldID(t, err))

	const n = 20
	conns := make([]*pgx.Conn, n)
	for i := range conns {
		conns[i] = e.connect([]string{a, b}[i%2], returnApp)
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = c.Exec(ctx, "INSERT INTO once VALUES (1)")
		}()
	}
	close(start)
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else {
			pgErr(t, err, "42501")
		}
	}
	if rows := e.count("SELECT count(*) FROM once"); rows != 1 || ok != 1 {
		t.Fatalf("%d rows and %d successes, want exactly one", rows, ok)
	}
}

// spend_approval_on: accepted: a resend the upstream refuses before running
// anything (42P01) leaves the approval APPROVED; the next successful one
// makes it EXECUTED. An error raised while running (23505) is no proof that
// nothing ran: it spends the approval (docs/postgres-listener.md).
func TestSpendOnAccepted(t *testing.T) {
	e := newEnv(t)
	addr := e.sidecar("accepted")
	ctx := context.Background()
	c := e.connect(addr, returnApp)
	_, err := c.Exec(ctx, "INSERT INTO u VALUES (1)")
	id := heldID(t, err)
	e.cp.Approve(t, id)
	_, err = c.Exec(ctx, "INSERT INTO u VALUES (1)")
	pgErr(t, err, "42P01")
	if st := e.cp.Review(t, id).Status; st != "APPROVED" {
		t.Fatalf("after the refused resend: %s, want APPROVED", st)
	}
	e.direct("CREATE TABLE u (id int PRIMARY KEY)")
	if _, err := c.Exec(ctx, "INSERT INTO u VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if st := e.cp.Review(t, id).Status; st != "EXECUTED" {
		t.Fatalf("after the accepted resend: %s, want EXECUTED", st)
	}
	_, err = c.Exec(ctx, "INSERT INTO u VALUES (1)")
	id2 := heldID(t, err)
	e.cp.Approve(t, id2)
	_, err = c.Exec(ctx, "INSERT INTO u VALUES (1)")
	pgErr(t, err, "23505")
	if st := e.cp.Review(t, id2).Status; st != "EXECUTED" {
		t.Fatalf("after a unique violation: %s, want EXECUTED", st)
	}
}

// With the Control Plane stopped, a held statement gets a clear error naming
// that, while SELECT 1 keeps working.
func TestControlPlaneStopped(t *testing.T) {
	e := newEnv(t)
	addr := e.sidecar("sent")
	e.direct("CREATE TABLE t (id int)")
	c := e.connect(addr, returnApp)
	e.cp.Stop()
	ctx := context.Background()
	_, err := c.Exec(ctx, "DROP TABLE t")
	pe := pgErr(t, err, "58000")
	if !strings.Contains(pe.Message, "Control Plane is unreachable") {
		t.Fatalf("message %q does not name the Control Plane", pe.Message)
	}
	var one int
	if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %v", err)
	}
	out := e.psql(addr, returnApp, "DROP TABLE t;\nSELECT 1 AS alive;\n")
	if !strings.Contains(out, "Control Plane is unreachable") || !strings.Contains(out, "(1 row)") {
		t.Fatalf("psql:\n%s", out)
	}
}

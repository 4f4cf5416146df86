package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// drainPipeline reads a pipeline's results up to its Sync and returns the first error.
func drainPipeline(t *testing.T, p *pgconn.Pipeline) error {
	t.Helper()
	var first error
	for {
		res, err := p.GetResults()
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		switch r := res.(type) {
		case *pgconn.PipelineSync:
			return first
		case *pgconn.ResultReader:
			if _, err := r.Close(); err != nil && first == nil {
				first = err
			}
		case nil:
			t.Fatal("pipeline ended without a Sync")
		}
	}
}

func sendPipeline(t *testing.T, c *pgconn.PgConn, params ...[]byte) error {
	t.Helper()
	p := c.StartPipeline(context.Background())
	p.SendQueryParams("INSERT INTO t VALUES (100)", nil, nil, nil, nil)
	for _, v := range params {
		p.SendQueryParams("DELETE FROM t WHERE id = $1", [][]byte{v}, nil, nil, nil)
	}
	if err := p.Sync(); err != nil {
		t.Fatal(err)
	}
	err := drainPipeline(t, p)
	if cerr := p.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// A pipeline up to Sync is one unit: a held statement discards all of it;
// two held statements in it make one approval; the identical resend runs it.
func TestPipelineHeldDiscardsUpToSync(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7), (8)")
	c := f.connect(returnApp).PgConn()

	id := heldID(t, sendPipeline(t, c, []byte("7")))
	if n := f.count("SELECT count(*) FROM t WHERE id = 100"); n != 0 {
		t.Fatal("the INSERT before the held DELETE in the pipeline ran")
	}
	if c.TxStatus() != 'I' {
		t.Fatalf("status %q after a held pipeline, want I", c.TxStatus())
	}
	two := heldID(t, sendPipeline(t, c, []byte("7"), []byte("8")))
	if two == id {
		t.Fatal("a pipeline with two held statements reused the one-statement approval")
	}
	if len(f.cp.Records()) != 2 {
		t.Fatalf("%d approvals filed, want one per pipeline", len(f.cp.Records()))
	}

	f.approve(id)
	if err := sendPipeline(t, c, []byte("7")); err != nil {
		t.Fatal(err)
	}
	if f.count("SELECT count(*) FROM t WHERE id = 100") != 1 || f.count("SELECT count(*) FROM t WHERE id = 7") != 0 {
		t.Fatal("the approved pipeline did not run whole")
	}
	f.approve(two)
	f.direct("INSERT INTO t VALUES (7)")
	if err := sendPipeline(t, c, []byte("7"), []byte("8")); err != nil {
		t.Fatal(err)
	}
	if f.count("SELECT count(*) FROM t WHERE id IN (7, 8)") != 0 {
		t.Fatal("the approved two-statement pipeline did not run")
	}
}

// A Flush lets part of a pipeline run before the held part arrives; the
// held part then rolls the implicit transaction back, as an error would.
func TestPipelineFlushThenHeldRollsBack(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7)")
	c := f.connect(returnApp).PgConn()
	ctx := context.Background()

	p := c.StartPipeline(ctx)
	p.SendQueryParams("INSERT INTO t VALUES (200)", nil, nil, nil, nil)
	p.SendFlushRequest()
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	res, err := p.GetResults()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.(*pgconn.ResultReader).Close(); err != nil {
		t.Fatalf("the INSERT before the Flush failed: %v", err)
	}
	p.SendQueryParams("DELETE FROM t WHERE id = $1", [][]byte{[]byte("7")}, nil, nil, nil)
	if err := p.Sync(); err != nil {
		t.Fatal(err)
	}
	heldID(t, drainPipeline(t, p))
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if n := f.count("SELECT count(*) FROM t WHERE id = 200"); n != 0 {
		t.Fatal("the INSERT of the held pipeline was committed")
	}
	if n := f.count("SELECT count(*) FROM t WHERE id = 7"); n != 1 {
		t.Fatal("the held DELETE ran")
	}
	if _, err := c.Exec(ctx, "SELECT 1").ReadAll(); err != nil {
		t.Fatalf("connection unusable: %v", err)
	}
}

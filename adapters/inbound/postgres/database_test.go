package postgres

import (
	"context"
	"net"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// An approval is for a statement on one database: the same text sent to
// another database of the same upstream, by the same user, is another
// statement.
func TestApprovalIsForOneDatabase(t *testing.T) {
	f := newFixture(t)
	other := f.db + "_other"
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, f.adminURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+other); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), f.adminURL("postgres"))
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+other+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	for _, db := range []string{f.db, other} {
		c, err := pgx.Connect(ctx, f.adminURL(db))
		if err != nil {
			t.Fatal(err)
		}
		c.Exec(ctx, "CREATE TABLE t (id int); INSERT INTO t VALUES (1), (2)")
		c.Close(ctx)
	}

	a := f.raw()
	got := ids(a.q("DELETE FROM t"))
	if len(got) != 1 {
		t.Fatal("DELETE was not held")
	}
	f.approve(got[0])

	c, err := net.Dial("tcp", f.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := &rawClient{t: t, c: c, fe: pgproto3.NewFrontend(c, c)}
	b.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "postgres", "database": other}})
	b.untilReady()
	out := b.q("DELETE FROM t")
	oc, err := pgx.Connect(ctx, f.adminURL(other))
	if err != nil {
		t.Fatal(err)
	}
	defer oc.Close(ctx)
	var n int
	if err := oc.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("the approval for database %s ran the DELETE on %s: %s", f.db, other, out)
	}
	if next := ids(out); len(next) != 1 || next[0] == got[0] {
		t.Fatalf("want a new approval for the other database, got %s", out)
	}
}

package postgres

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hoophq/sidecar/domain"
)

// COPY in both directions passes through: pgx CopyFrom (COPY FROM STDIN
// binary), COPY TO STDOUT, and psql's \copy.
func TestCopyBothDirections(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int, name text)")
	ctx := context.Background()
	c := f.connect("")
	n, err := c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id", "name"},
		pgx.CopyFromRows([][]any{{1, "a"}, {2, "b"}, {3, "c"}}))
	if err != nil || n != 3 {
		t.Fatalf("CopyFrom: %d %v", n, err)
	}
	var out bytes.Buffer
	if _, err := c.PgConn().CopyTo(ctx, &out, "COPY t TO STDOUT"); err != nil {
		t.Fatal(err)
	}
	if out.String() != "1\ta\n2\tb\n3\tc\n" {
		t.Fatalf("COPY TO STDOUT gave %q", out.String())
	}
	psqlOut := f.psql("", "\\copy t FROM stdin\n4\td\n5\te\n\\.\nSELECT count(*) AS n FROM t;\n")
	if !strings.Contains(psqlOut, "COPY 2") || !strings.Contains(psqlOut, " 5\n") {
		t.Fatalf("psql \\copy:\n%s", psqlOut)
	}
}

// A held COPY FROM STDIN is denied before any data is sent; the connection
// stays usable; the approved identical resend loads the rows.
func TestHeldCopyFrom(t *testing.T) {
	f := newFixture(t, withApproval("loads", domain.Match{Actions: []string{"COPY_FROM"}}))
	f.direct("CREATE TABLE t (id int)")
	ctx := context.Background()
	c := f.connect(returnApp)
	rows := pgx.CopyFromRows([][]any{{1}, {2}})
	_, err := c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id"}, rows)
	id := heldID(t, err)
	if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatalf("connection unusable: %v", err)
	}
	f.approve(id)
	n, err := c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id"}, pgx.CopyFromRows([][]any{{1}, {2}}))
	if err != nil || n != 2 {
		t.Fatalf("approved COPY: %d %v", n, err)
	}
}

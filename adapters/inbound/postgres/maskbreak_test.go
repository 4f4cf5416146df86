package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
)

// COPY TO STDOUT with its own DELIMITER, QUOTE or ESCAPE: the server
// escapes or quotes that character inside the data (alice\@example.com,
// @alice@@example.com@, 4111\ 1111\ ...), so the entity patterns no
// longer see the value, and the client unescapes it back into clear.
func TestMaskBreakCopyOptions(t *testing.T) {
	a := &auditLog{}
	f := newFixture(t, withMasking(t, a, piiMask))
	out := f.psql("", `COPY (SELECT 'alice@example.com', 'x') TO STDOUT WITH (DELIMITER '@');
COPY (SELECT 'alice@example.com', 'x') TO STDOUT WITH (FORMAT csv, QUOTE '@');
COPY (SELECT 'alice@example.com', 'x') TO STDOUT WITH CSV QUOTE AS '@' ESCAPE AS '\';
COPY (SELECT '4111 1111 1111 1111', 'x') TO STDOUT WITH (DELIMITER ' ');
COPY (SELECT '4111 1111 1111 1111', 'x') TO STDOUT WITH (FORMAT csv, QUOTE ' ');
SELECT 'still here' AS alive;
COPY (SELECT 'alice@example.com', 'x') TO STDOUT WITH (FORMAT csv);
`)
	for _, leak := range []string{`alice\@example.com`, `alice@@example.com`, `4111\ 1111`, `4111  1111`, email, card} {
		if strings.Contains(out, leak) {
			t.Fatalf("%q in clear:\n%s", leak, out)
		}
	}
	for _, want := range []string{"ERROR:  hoop: the result was withheld", "still here", "*****@*******.***,x"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
}

// A rule whose match names a table (targets) masks a SELECT of it, but a
// cursor splits the read in two statements: DECLARE names the table and
// returns no row, FETCH returns the rows and names no table. psql sends
// each statement alone, pgx runs FETCH with the extended protocol.
func TestMaskBreakCursorFetch(t *testing.T) {
	a := &auditLog{}
	m := &domain.Match{Targets: []string{"public.customers"}}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, withMasking(t, a, masking.Rule{Name: "cust", Match: m, Columns: []string{"ssn"}, Strategy: masking.Redact}))
	f.direct("CREATE TABLE customers(id int, ssn text); INSERT INTO customers VALUES (1, '123456789')")
	out := f.psql("", `BEGIN;
DECLARE c CURSOR FOR SELECT id, ssn FROM customers;
FETCH ALL FROM c;
COMMIT;
SELECT 'plain' AS ssn;
`)
	if strings.Contains(out, "123456789") || !strings.Contains(out, "<REDACTED>") || !strings.Contains(out, "plain") {
		t.Fatalf("psql FETCH:\n%s", out)
	}
	c := f.connect("")
	ctx := context.Background()
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "DECLARE c2 CURSOR FOR SELECT ssn FROM customers"); err != nil {
		t.Fatal(err)
	}
	var ssn string
	if err := tx.QueryRow(ctx, "FETCH NEXT FROM c2").Scan(&ssn); err != nil {
		t.Fatal(err)
	}
	if ssn != "<REDACTED>" {
		t.Fatalf("pgx FETCH gave %q", ssn)
	}
}

// A bytea holding an email or a card number: psql reads it in the default
// hex output (\x616c69…), which no pattern reads, and pgx reads it in
// binary format as the raw bytes, which the listener rendered as hex
// before looking for entities: the client got the value in clear.
func TestMaskBreakBytea(t *testing.T) {
	a := &auditLog{}
	f := newFixture(t, withMasking(t, a, piiMask))
	out := f.psql("", `SELECT 'alice@example.com'::bytea AS b, convert_to('card 4111 1111 1111 1111', 'UTF8') AS c, ARRAY['alice@example.com'::bytea] AS arr, 'plain'::bytea AS p;
`)
	for _, leak := range []string{"616c696365406578616d706c652e636f6d", "34313131203131313120313131312031313131"} {
		if strings.Contains(out, leak) {
			t.Fatalf("hex of a value in clear:\n%s", out)
		}
	}
	if !strings.Contains(out, `\x706c61696e`) {
		t.Fatalf("a bytea with no entity was changed:\n%s", out)
	}
	c := f.connect("")
	var b []byte
	var arr [][]byte
	if err := c.QueryRow(context.Background(), "SELECT 'alice@example.com'::bytea, ARRAY['x'::bytea, 'alice@example.com'::bytea]").Scan(&b, &arr); err != nil {
		t.Fatal(err)
	}
	if b != nil || len(arr) != 2 || arr[1] != nil || string(arr[0]) != "x" {
		t.Fatalf("pgx bytea %q, bytea[] %q", b, arr)
	}
}

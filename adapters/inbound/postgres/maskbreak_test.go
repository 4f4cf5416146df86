package postgres

import (
	"strings"
	"testing"
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

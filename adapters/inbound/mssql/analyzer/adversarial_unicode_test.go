package analyzer

import (
	"slices"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// A non-ASCII space between words is Unknown: the grammar reads U+1680 and
// U+180E as letters of a name, so "SELECT 1 AS a<U+1680>DELETE FROM t" was
// one SELECT, where a server taking the character for a space runs a
// DELETE. Inside strings and quoted names such characters are text.
func TestUnicodeSpaceBetweenWordsIsUnknown(t *testing.T) {
	for _, sp := range []string{"\u1680", "\u180e", "\u00a0", "\u2003", "\u3000", "\ufeff"} {
		r := Analyze("SELECT 1 AS a"+sp+"DELETE FROM t", "db")
		if !slices.Contains(r.Statements[0].Analysis.Actions, domain.ActionUnknown) {
			t.Errorf("%+q between words: %+v, want UNKNOWN", sp, r.Statements)
		}
	}
	for _, q := range []string{"SELECT N'a\u1680b'", "SELECT 1 AS [a\u3000b]", "SELECT 1 AS Müller"} {
		if r := Analyze(q, "db"); r.Err != nil {
			t.Errorf("%q: %v", q, r.Err)
		}
	}
}

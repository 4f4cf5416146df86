package rulesdoc

import (
	"slices"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

func TestParseRow(t *testing.T) {
	r, err := parseRow("| mysql | `SELECT 'a|b' FROM t` | read, `UNBOUNDED` | a note |", 7)
	if err != nil {
		t.Fatal(err)
	}
	if r.Protocol != "mysql" || r.Statement != "SELECT 'a|b' FROM t" || !slices.Equal(r.Effects, []string{"READ", "UNBOUNDED"}) || r.Note != "a note" || r.Line != 7 {
		t.Fatalf("parseRow = %+v", r)
	}
	for _, bad := range []string{"| mysql | SELECT 1 | READ | |", "| mysql | `SELECT 1 | READ |", "| mysql | `SELECT 1` |  | |"} {
		if _, err := parseRow(bad, 1); err == nil {
			t.Errorf("parseRow(%q) read a row, want an error", bad)
		}
	}
}

// Every row of docs/rules.md names a protocol that has a listener and only
// words of domain.Effects.
func TestTableUsesTheVocabulary(t *testing.T) {
	rows, err := Rows("")
	if err != nil {
		t.Fatal(err)
	}
	protocols := []string{"postgres", "mysql", "mssql", "mongodb", "http", "grpc"}
	for _, r := range rows {
		if !slices.Contains(protocols, r.Protocol) {
			t.Errorf("docs/rules.md:%d: protocol %q is none of %v", r.Line, r.Protocol, protocols)
		}
		for _, e := range r.Effects {
			if !slices.Contains(domain.Effects, e) {
				t.Errorf("docs/rules.md:%d: %q is not an effect (domain.Effects)", r.Line, e)
			}
		}
	}
}

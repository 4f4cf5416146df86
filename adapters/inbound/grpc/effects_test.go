package grpclistener

import (
	"slices"
	"sort"
	"testing"

	"github.com/hoophq/sidecar/internal/rulesdoc"
)

// TestEffectsTable: every grpc row of docs/rules.md's effects table, read
// as `sidecar explain` reads it (Explain), reports exactly the row's
// effects (as a set).
func TestEffectsTable(t *testing.T) {
	rows, err := rulesdoc.Rows("grpc")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 8 {
		t.Fatalf("docs/rules.md has %d grpc rows, want at least 8", len(rows))
	}
	for _, row := range rows {
		a, err := Explain(row.Statement)
		if err != nil {
			t.Errorf("docs/rules.md:%d: %v", row.Line, err)
			continue
		}
		got, want := slices.Clone(a.Effects), slices.Clone(row.Effects)
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("docs/rules.md:%d: %s\n got effects %v\nwant %v", row.Line, row.Statement, got, want)
		}
	}
}

// TestMethodEffectsByName: the verb must be a whole UpperCamelCase word
// and stand alone; anything else is a custom method.
func TestMethodEffectsByName(t *testing.T) {
	for _, tc := range []struct{ method, want string }{
		{"/a.B/Get", "READ"},
		{"/a.B/GetHTTPRoute", "READ"},
		{"/a.B/ListDeletedBooks", "READ"}, // Deleted is not Delete
		{"/a.B/DeleteBook", "DELETE"},
		{"/a.B/deleteBook", "UNKNOWN"},
		{"/a.B/Delete_book", "UNKNOWN"},
		{"/a.B/GetBookUpdate", "UNKNOWN"},
		{"/a.B/DeleteAndGetBook", "UNKNOWN"},
		{"/a.B/Batch", "UNKNOWN"},
		{"/a.B/BatchBooks", "UNKNOWN"},
		{"/a.B/Undelete", "UNKNOWN"},
		{"/a.B/Créer", "UNKNOWN"},
		{"/grpc.health.v1.Health/Watch", "READ"},
		{"/grpc.health.v2.Health/Watch", "UNKNOWN"}, // not a known service; Watch is no standard verb
	} {
		if got := methodEffects(tc.method); !slices.Equal(got, []string{tc.want}) {
			t.Errorf("%s: effects %v, want [%s]", tc.method, got, tc.want)
		}
	}
}

// TestExplainRefusesOtherForms: explain's reading wants the full
// method name.
func TestExplainRefusesOtherForms(t *testing.T) {
	for _, s := range []string{"GetBook", "/GetBook", "/a.B/", "//GetBook", "/a.B/C/D"} {
		if _, err := Explain(s); err == nil {
			t.Errorf("Explain(%q): no error", s)
		}
	}
}

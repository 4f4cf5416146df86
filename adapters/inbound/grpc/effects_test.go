package grpclistener

import (
	"slices"
	"testing"

	"github.com/hoophq/sidecar/internal/rulesdoc"
)

// TestEffectsTable: every grpc row of docs/rules.md's effects table, read
// as `sidecar explain` reads it (Explain), reports exactly the row's
// effects.
func TestEffectsTable(t *testing.T) {
	rulesdoc.Check(t, "grpc", 8, func(s string) ([]string, error) {
		a, err := Explain(s)
		return a.Effects, err
	})
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

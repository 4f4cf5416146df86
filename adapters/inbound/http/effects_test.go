package httplistener

import (
	"net/http/httptest"
	"slices"
	"sort"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/rulesdoc"
)

// TestEffectsTable: every http row of docs/rules.md's effects table, read
// as `sidecar explain` reads it (Explain), reports exactly the row's
// effects.
func TestEffectsTable(t *testing.T) {
	rulesdoc.Check(t, "http", 10, func(s string) ([]string, error) {
		a, err := Explain(s)
		return a.Effects, err
	})
}

// TestEffectsOfOverridesAndReadings: a method override header adds its
// method's effects (a POST acting as a DELETE is DELETE), a lower-case or
// unknown method is read as upper case or UNKNOWN, and a path that only a
// lenient reading makes a Kubernetes collection is UNBOUNDED too.
func TestEffectsOfOverridesAndReadings(t *testing.T) {
	for _, tc := range []struct {
		method, target, override string
		want                     []string
	}{
		{"POST", "/v1/items/1", "DELETE", []string{"DELETE", "INSERT", "UNKNOWN"}},
		{"GET", "/v1/items", "PURGE", []string{"READ", "UNKNOWN"}},
		{"delete", "/v1/items/1", "", []string{"DELETE"}},
		{"BREW", "/pot", "", []string{"UNKNOWN"}},
		{"DELETE", "/api/v1/namespaces/default//pods/", "", []string{"DELETE", "UNBOUNDED"}},
		{"DELETE", "/api/v1/namespaces/default/x/../pods", "", []string{"DELETE", "UNBOUNDED"}},
		{"DELETE", "/API/V1/namespaces/default/pods", "", []string{"DELETE", "UNBOUNDED"}},
		{"DELETE", "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb&labelSelector=", "", []string{"DELETE", "UNBOUNDED"}},
		{"DELETE", "/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dweb-1", "", []string{"DELETE"}},
	} {
		r := httptest.NewRequest(tc.method, "http://sidecar"+tc.target, nil)
		r.Method = tc.method
		if tc.override != "" {
			r.Header.Set("X-HTTP-Method-Override", tc.override)
		}
		if got := sorted(analyze(r).Effects); !slices.Equal(got, sorted(tc.want)) {
			t.Errorf("%s %s (override %q): effects %v, want %v", tc.method, tc.target, tc.override, got, tc.want)
		}
	}
}

// TestMethodEffectsAreEffects: every method the listener knows has a row,
// and every word in it is of the vocabulary.
func TestMethodEffectsAreEffects(t *testing.T) {
	for _, m := range methods {
		e, ok := methodEffects[m]
		if !ok && m != "CONNECT" {
			t.Errorf("method %s has no effects row", m)
		}
		for _, w := range e {
			if !domain.IsEffect(w) {
				t.Errorf("method %s: %q is not an effect", m, w)
			}
		}
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

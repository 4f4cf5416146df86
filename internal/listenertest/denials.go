package listenertest

import (
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// EveryDenialKind fails t unless table, a protocol's map from each
// domain.DenialKind to its own error, has every kind domain.DenialKinds
// lists and no other: no kind falls back to another's error.
func EveryDenialKind[E any](t *testing.T, protocol string, table map[domain.DenialKind]E) {
	t.Helper()
	seen := map[domain.DenialKind]bool{}
	for _, k := range domain.DenialKinds() {
		seen[k] = true
		if _, ok := table[k]; !ok {
			t.Errorf("denial kind %d has no %s error", k, protocol)
		}
	}
	for k := range table {
		if !seen[k] {
			t.Errorf("the %s table maps kind %d, which domain.DenialKinds does not list", protocol, k)
		}
	}
}

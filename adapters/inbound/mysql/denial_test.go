package mysql

import (
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// Every kind of denial the gate gives has this protocol's own error: no
// kind falls back to another's (a refusal answered as "unavailable").
func TestEveryDenialKindIsMapped(t *testing.T) {
	seen := map[domain.DenialKind]bool{}
	for _, k := range domain.DenialKinds() {
		seen[k] = true
		if _, ok := denialErrors[k]; !ok {
			t.Errorf("denial kind %d has no mysql error", k)
		}
	}
	for k := range denialErrors {
		if !seen[k] {
			t.Errorf("denialErrors maps kind %d, which domain.DenialKinds does not list", k)
		}
	}
}

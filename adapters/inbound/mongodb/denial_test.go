package mongodb

import (
	"testing"

	"github.com/hoophq/sidecar/internal/listenertest"
)

// Every kind of denial the gate gives has this protocol's own error.
func TestEveryDenialKindIsMapped(t *testing.T) {
	listenertest.EveryDenialKind(t, "mongodb", denialCodes)
}

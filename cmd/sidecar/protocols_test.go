package main

import (
	"testing"

	"github.com/hoophq/sidecar/app"
)

// Every protocol this binary serves tells validate its action vocabulary, so
// a typo in a rule's actions is a mistake on every listener, including the
// protocols added later.
func TestEveryProtocolChecksActions(t *testing.T) {
	checks := protocolChecks()
	for _, p := range protocols(nil) {
		if _, ok := p.(app.ActionChecker); !ok {
			t.Errorf("protocol %s does not implement app.ActionChecker", p.Name())
		}
		if c := checks[p.Name()]; c.Action == nil || c.Action("SURELY_NOT_AN_ACTION") == nil {
			t.Errorf("protocol %s: validate would accept any action", p.Name())
		}
	}
	if len(checks) < 3 {
		t.Fatalf("want postgres, http and grpc at least, got %v", checks)
	}
}

package core

import (
	"context"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// The controlplane binary's reopen, seen through the Sidecar's own client: a
// REVOKED approval keeps being reused until `controlplane reopen`, after
// which the same fingerprint finds a new PENDING request; reopening it again,
// or a PENDING request, exits 1 with the conflict and files nothing.
func TestReopenWithTheCLIBinary(t *testing.T) {
	cp := harness.StartControlPlane(t, harness.CPOptions{})
	c := client(t, cp, "test")
	a := file(t, c, "v1:fp-reopen", 0)
	cp.Approve(t, a.ID)
	cp.Revoke(t, a.ID)
	if again := file(t, c, "v1:fp-reopen", 0); again.ID != a.ID || again.Status != domain.StatusRevoked {
		t.Fatalf("before reopen the fingerprint must find its revocation, got %s %s", again.ID, again.Status)
	}

	out := cp.CLI(t, "reopen", a.ID)
	b := file(t, c, "v1:fp-reopen", 0)
	if b.ID == a.ID || b.Status != domain.StatusPending || out != "reopened "+a.ID+" (was REVOKED) as "+b.ID+" (PENDING)\n" {
		t.Fatalf("controlplane reopen printed %q; the fingerprint then finds %s %s", out, b.ID, b.Status)
	}
	if got, err := c.Get(context.Background(), a.ID); err != nil || got.Status != domain.StatusRevoked {
		t.Fatalf("the revoked approval must stay REVOKED for the agent that read it: %v %v", got.Status, err)
	}

	for id, want := range map[string]string{
		a.ID: "it was reopened already as " + b.ID + " (conflict, HTTP 409)",
		b.ID: "it is PENDING (reopen needs REJECTED or REVOKED) (conflict, HTTP 409)",
	} {
		out, err := cp.TryCLI("reopen", id)
		if err == nil || !strings.Contains(out, "controlplane: error: cannot reopen approval "+id+": "+want) {
			t.Fatalf("reopen %s: %v\n%s", id, err, out)
		}
	}
	if list, err := c.List(context.Background(), "", 200); err != nil || len(list) != 2 {
		t.Fatalf("%d requests (%v), want the revoked one and its reopening", len(list), err)
	}
	if _, won, err := c.Claim(context.Background(), b.ID, "v1:fp-reopen", ports.SpendOnSent, ""); err != nil || won {
		t.Fatalf("a reopened request is PENDING until a person approves it: won=%v %v", won, err)
	}
}

package server_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
	"github.com/hoophq/sidecar/ports"
)

// An agent may ask the status path for any id, "." and ".." included. Those
// are dot segments, never an approval id: the Sidecar's client must answer
// "not found" (status path 404, MCP "Not found"), not a redirect error that
// reads as a failing Control Plane (502).
func TestDotSegmentIDsAreNotFound(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	c := sidecarClient(t, cp.URL, demo)
	ctx := context.Background()
	for _, id := range []string{".", ".."} {
		if _, err := c.Get(ctx, id); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("Get(%q): %v, want ErrNotFound", id, err)
		}
		if _, _, err := c.Claim(ctx, id, "v1:aa", ports.SpendOnSent, ""); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("Claim(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := c.Settle(ctx, id, "", true); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("Settle(%q): %v, want ErrNotFound", id, err)
		}
	}
}

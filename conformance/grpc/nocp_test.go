package grpcconformance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/grpc/upstream"
	"github.com/hoophq/sidecar/conformance/harness"
)

// A Sidecar without a Control Plane: grpcurl lists and calls through a
// listener that no rule holds; a held method is denied (fail closed) with
// x-hoop-denied: policy and never reaches the upstream.
func TestWithoutControlPlane(t *testing.T) {
	up := upstream.Start(t, upstream.Options{})
	open, held := harness.FreeAddr(t), harness.FreeAddr(t)
	cfg := fmt.Sprintf(`sidecar: test
approval_rules:
  - {name: probe-approvers, match: {targets: ["/hoop.probe.v1.Probe/*"]}}
listeners:
  - {name: open, protocol: grpc, listen: %s, upstream: %s}
  - {name: held, protocol: grpc, listen: %s, upstream: %s, mode: return, approval_rules: [probe-approvers]}
`, open, up.Addr, held, up.Addr)
	harness.StartSidecar(t, harness.SidecarOptions{Config: cfg})

	out, code := grpcurl(t, "-plaintext", open, "list")
	if code != 0 || !strings.Contains(out, "hoop.probe.v1.Probe\n") {
		t.Errorf("list through the binary (exit %d)", code)
	}
	out, code = grpcurl(t, "-plaintext", "-d", `{"name":"bin"}`, open, "hoop.probe.v1.Probe/Unary")
	if code != 0 || !strings.Contains(out, `"text": "hello bin"`) {
		t.Errorf("unary through the binary (exit %d)", code)
	}
	out, code = grpcurl(t, "-plaintext", "-v", "-d", `{"name":"bin"}`, held, "hoop.probe.v1.Probe/Unary")
	if code == 0 || !strings.Contains(out, "Code: PermissionDenied") || !strings.Contains(out, "x-hoop-denied: policy") ||
		!strings.Contains(out, "Control Plane is unreachable") {
		t.Errorf("held call without a Control Plane (exit %d)", code)
	}
	if n := up.Count("Unary"); n != 1 {
		t.Errorf("upstream saw %d Unary calls, want 1", n)
	}
}

package mongodb

import (
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// TestMain wires the suite's container hook to the harness's MongoDB kind
// (an image named in HOOP_TEST_MONGODB_IMAGE; none is built here,
// docs/container.md) and stops the container when the suite ends.
func TestMain(m *testing.M) {
	containerUpstream = func(t testing.TB) (upstream, bool) {
		t.Helper()
		u := harness.ContainerURL(t, harness.MongoDB)
		if u == "" {
			return upstream{}, false
		}
		return upstream{URL: u, Addr: hostPort(u), Source: "a testcontainers-go MongoDB container (" + u + ")"}, true
	}
	harness.Main(m)
}

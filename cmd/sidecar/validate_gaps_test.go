package main_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// validate must print the mistakes that make run refuse to start: a bad
// mcp.allowed_hosts entry and a Control Plane URL with a query, fragment or
// user info passed validate ("valid") and then stopped run.
func TestValidateReportsWhatRunRefuses(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	cfg := writeConfig(t, `
sidecar: demo
control_plane: {url: "http://user:pw@127.0.0.1:1/?x=1", token_env: HOOP_SIDECAR_TOKEN}
mcp: {listen: 127.0.0.1:0, allowed_hosts: ["a/b"]}
listeners: []
`)
	out, err := exec.Command(bin, "validate", cfg).CombinedOutput()
	if err == nil {
		t.Fatalf("validate exited 0:\n%s", out)
	}
	for _, want := range []string{`control_plane.url: `, `mcp.allowed_hosts: "a/b" is not a host name`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
}

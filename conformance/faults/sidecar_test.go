package faults

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// insertSidecar starts a Sidecar on listen with one postgres listener in
// return mode, spending approvals on spend (sent or accepted), a rule that
// holds INSERT and its Control Plane at cpURL, in front of dbURL's server.
// It returns the Sidecar and the URL an agent connects to (dbURL's database
// through the listener).
func insertSidecar(t *testing.T, cpURL, listen, dbURL, spend string) (*harness.Sidecar, string) {
	t.Helper()
	u, _ := url.Parse(dbURL)
	sc := harness.StartSidecar(t, harness.SidecarOptions{Token: sidecarToken, Config: fmt.Sprintf(`sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN, timeout: 2s}
log: {format: text, level: info}
approval_rules:
  - {name: inserts, match: {actions: [INSERT]}}
listeners:
  - {name: pg, protocol: postgres, listen: %s, upstream: %s, mode: return, spend_approval_on: %s, approval_rules: [inserts]}
`, cpURL, listen, u.Host, spend)})
	return sc, fmt.Sprintf("postgres://postgres@%s%s?sslmode=disable", listen, u.Path)
}

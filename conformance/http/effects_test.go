package httpconformance

import (
	"fmt"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// The real sidecar binary with a rule on the DELETE effect (docs/rules.md):
// curl's DELETE is held with the approval's headers and never reaches the
// upstream; a POST that asks the upstream to act as a DELETE (a method
// override header) is held too; a GET and a PUT pass (their effects are
// READ, and UPDATE and INSERT).
func TestBinaryEffectDeleteHoldsDeleteLetsGetThrough(t *testing.T) {
	up, rec := newUpstream(t, nil)
	cp := startControlPlane(t, nil)
	addr := harness.FreeAddr(t)
	harness.StartSidecar(t, harness.SidecarOptions{Token: sidecarTokens["test"], Config: fmt.Sprintf(`
sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN}
approval_rules:
  - {name: deletes-anywhere, match: {effects: [DELETE]}}
listeners:
  - {name: api, protocol: http, listen: %s, upstream: %s, mode: return, approval_rules: [deletes-anywhere]}
`, cp.URL, addr, up.URL)})
	base := "http://" + addr

	resp, _ := curl(t, "-X", "DELETE", base+"/v1/items/7")
	denialHeaders(t, resp, "PENDING", true)
	resp, _ = curl(t, "-X", "POST", "-H", "X-HTTP-Method-Override: DELETE", base+"/v1/items/7")
	denialHeaders(t, resp, "PENDING", true)
	if n := rec.count("DELETE", "/v1/items/7") + rec.count("POST", "/v1/items/7"); n != 0 {
		t.Fatalf("a held request reached the upstream %d times", n)
	}

	resp, body := curl(t, base+"/v1/items/7")
	if resp.StatusCode != 200 || body != "upstream ok GET /v1/items/7" {
		t.Fatalf("GET under a rule on DELETE: %d %q", resp.StatusCode, body)
	}
	resp, body = curl(t, "-X", "PUT", "-d", `{"n":1}`, base+"/v1/items/7")
	if resp.StatusCode != 200 || body != "upstream ok PUT /v1/items/7" {
		t.Fatalf("PUT under a rule on DELETE: %d %q", resp.StatusCode, body)
	}
	if rec.count("GET", "/v1/items/7") != 1 || rec.count("PUT", "/v1/items/7") != 1 {
		t.Fatal("the upstream did not see the GET and the PUT once each")
	}
}

package httpconformance

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// issueTargets are the request targets of issue 10, point 3, verbatim: each
// reached the upstream through the listener before.
var issueTargets = []string{
	"/.well-known/hoop/../x", "/.well-known/hoop/..", "/.well-known/hoop/x/../../y",
	"/.well-known/hoop./x", "/.well-known/hoop%2e/x", "/.well-known/hoop%20/x",
}

// moreSpellings read into the prefix the way some server may read them:
// ;params, double and mixed-case encoding, overlong UTF-8, repeated slashes,
// an escaped '?', '#' or NUL, '\', letter case, fullwidth and dot-leader
// forms, a '/' escaped inside a segment and then resolved.
var moreSpellings = []string{
	"/.well-known/hoop;v=1/x", "/.well-known;a=b/hoop/x", "/.well-known/hoop%252e/x", "/%2Ewell-known/hoop/x",
	"/%2e%2E/.well-known/hoop/x", "/%c0%aewell-known/hoop/x", "/.well-known%c0%afhoop/x", "//.well-known//hoop/",
	"/.well-known/hoop%3f/x", "/.well-known/hoop%23/x", "/.well-known/hoop%00/x", "/.well-known/ho%00op/x",
	"/.well-known%5choop/x", "/.WELL-KNOWN/HOOP/approvals/x", "/.well-known/Hoop", "/%ef%bc%8ewell-known/hoop/x",
	"/.well-known/hoop%e2%80%a4/x", "/.well-known/a%2fb/../hoop/x", "/.well-known/hoop.%20./x", "/x/../.well-known/hoop/a",
	"/.well-known/hoop/approvals/%2e%2e", "/.well-known/hoop/approvals/..;/x",
}

// The real sidecar binary, with the reference Control Plane, in front of a
// recording upstream: curl --path-as-is sends each target byte for byte,
// and the Sidecar answers each itself (400, {"message"}, no-store, close);
// none reaches the upstream (this test and TestMain check the upstream).
func TestBinaryAnswersEveryReadingOfThePrefix(t *testing.T) {
	up, rec := newUpstream(t, nil)
	cp := startControlPlane(t, nil)
	addr := harness.FreeAddr(t)
	harness.StartSidecar(t, harness.SidecarOptions{Token: sidecarTokens["test"], Config: fmt.Sprintf(`
sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN}
approval_rules:
  - {name: deletes, match: {actions: [DELETE], targets: ["/v1/**"]}}
listeners:
  - {name: api, protocol: http, listen: %s, upstream: %s, mode: return, approval_rules: [deletes]}
`, cp.URL, addr, up.URL)})
	base := "http://" + addr

	sealed := func(t *testing.T, what string, resp *http.Response, body string) {
		t.Helper()
		if msg := errorMessage(t, resp, body, 400); !strings.Contains(msg, "belongs to the Sidecar and is never forwarded") {
			t.Errorf("%s: message %q", what, msg)
		}
	}
	for _, target := range append(append([]string{}, issueTargets...), moreSpellings...) {
		for _, m := range []string{"GET", "POST", "DELETE"} {
			resp, body := curl(t, "--path-as-is", "-X", m, base+target)
			sealed(t, m+" "+target, resp, body)
		}
		resp, body := curl(t, "--path-as-is", "-I", base+target)
		if resp.StatusCode != 400 || body != "" || resp.Header.Get("Cache-Control") != "no-store" || !resp.Close {
			t.Errorf("HEAD %s: %d %v %q", target, resp.StatusCode, resp.Header, body)
		}
		// Behind another request on the connection: closed unanswered.
		out := raw(t, base, "GET /v1/warm HTTP/1.1\r\nHost: api\r\n\r\nGET "+target+" HTTP/1.1\r\nHost: api\r\n\r\n")
		if rs := responses(t, out); len(rs) != 1 || rs[0].StatusCode != 200 {
			t.Errorf("%s behind another request: %q", target, out)
		}
	}
	// Absolute form (a proxy-style request target), and a raw backslash,
	// which only --request-target sends as it is.
	for _, target := range []string{"http://api/.well-known/hoop/..", "http://api/.well-known/hoop./x",
		"HTTP://api//.well-known/hoop/x/../../y", `/.well-known\hoop\x`, `/.well-known/x\..\hoop`} {
		resp, body := curl(t, "--path-as-is", "--request-target", target, base)
		sealed(t, target, resp, body)
	}

	// The status path keeps working, and so does everything else.
	resp, _ := curl(t, "-X", "DELETE", "-H", "X-Hoop-Approval: return", base+"/v1/x")
	id := denialHeaders(t, resp, "PENDING", true)
	if resp, view := statusJSON(t, base+"/.well-known/hoop/approvals/"+id); resp.StatusCode != 200 || view["next"] != "wait" {
		t.Errorf("status path: %d %v", resp.StatusCode, view)
	}
	resp, body := curl(t, "--path-as-is", base+"/.well-known/hoop/other")
	if msg := errorMessage(t, resp, body, 404); !strings.Contains(msg, "belongs to the Sidecar") {
		t.Errorf("404 message %q", msg)
	}
	for _, p := range []string{"/v1/ok", "/a/b/../c"} {
		if resp, _ := curl(t, "--path-as-is", base+p); resp.StatusCode != 200 {
			t.Errorf("GET %s: %d, want the upstream's 200", p, resp.StatusCode)
		}
	}

	if rec.count("GET", "/v1/warm") != len(issueTargets)+len(moreSpellings) {
		t.Fatal("the warm-up requests did not all reach the upstream: this test could not see a leak")
	}
	for _, s := range rec.all() {
		switch s.RequestURI {
		case "/v1/warm", "/v1/ok", "/a/b/../c":
		default:
			t.Errorf("the upstream received %s %s", s.Method, s.RequestURI)
		}
	}
}

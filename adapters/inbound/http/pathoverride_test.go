package httplistener_test

import (
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// X-Original-URL and X-Rewrite-URL make some upstreams (IIS URL Rewrite,
// Laminas/Zend, older Symfony) act on another path than the request line's.
// The rules and the /.well-known/hoop/ reservation read the request line, so
// these headers would carry a held path, or the reserved prefix, past them:
// the listener drops them before the upstream.
func TestPathOverrideHeadersDoNotReachTheUpstream(t *testing.T) {
	up, rec := newUpstream(t, nil)
	addr := newSidecar(true).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL,
		Approvals: []domain.ApprovalRule{deleteRule(t)}})
	for _, h := range []string{"X-Original-URL", "X-Rewrite-URL", "x-original-url"} {
		for _, path := range []string{"/.well-known/hoop/approvals/x", "/v1/items/42"} {
			resp, _ := send(t, "GET", "http://"+addr+"/v1/ok", "", h, path)
			if resp.StatusCode != 200 {
				t.Fatalf("%s: %s: got %d, want the upstream's 200", h, path, resp.StatusCode)
			}
		}
	}
	got := rec.all()
	if len(got) != 6 {
		t.Fatalf("upstream saw %d requests, want 6", len(got))
	}
	for _, r := range got {
		if v := r.Header.Get("X-Original-URL") + r.Header.Get("X-Rewrite-URL"); v != "" {
			t.Errorf("a path override reached the upstream: %q", v)
		}
	}
}

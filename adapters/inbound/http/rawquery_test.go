package httplistener_test

import (
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// What runs is what the approver saw: the upstream gets the query exactly as
// the client sent it (and as the fingerprint covers it). Go's ReverseProxy
// re-encodes a query it cannot parse, dropping "dry_run=true;" so that an
// approved "?dry_run=true;&force=true" ran as "?force=true".
func TestTheUpstreamGetsTheQueryTheApproverSaw(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{deleteRule(t)}})
	const query = "dry_run=true;&force=true&b=%zz&a=1"
	url := "http://" + addr + "/v1/items/9?" + query
	resp, _ := send(t, "DELETE", url, "")
	id := resp.Header.Get("X-Hoop-Approval-Id")
	if resp.StatusCode != 403 || id == "" {
		t.Fatalf("first send: %d", resp.StatusCode)
	}
	if err := sc.CP.Decide(id, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	if resp, _ := send(t, "DELETE", url, ""); resp.StatusCode != 200 {
		t.Fatalf("approved resend: %d", resp.StatusCode)
	}
	// A request no rule covers passes its query untouched too.
	if resp, _ := send(t, "GET", url, ""); resp.StatusCode != 200 {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	got := rec.all()
	if len(got) != 2 {
		t.Fatalf("upstream saw %d requests", len(got))
	}
	for _, r := range got {
		if r.RawQuery != query {
			t.Errorf("upstream ran %s with query %q, the approver saw %q", r.Method, r.RawQuery, query)
		}
	}
}

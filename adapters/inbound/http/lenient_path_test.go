package httplistener_test

import (
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// Rules see the path the way lenient upstreams read it: case-insensitive
// routers (Express, ASP.NET), ";params" (Servlet containers), escapes decoded
// twice, '\' as '/'. None of those spellings dodges a rule written in lower case.
func TestRulesSeeThePathAsLenientUpstreamsReadIt(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{rule(t, "inv", []string{"DELETE"}, []string{"/v1/invoices/**"}, 0)}})
	for _, p := range []string{"/V1/Invoices/42", "/v1;jsessionid=1/invoices/42", "/v1/%2569nvoices/42",
		"/v1%5Cinvoices/42", "/v1/invoices;x/42"} {
		resp, _ := send(t, "DELETE", "http://"+addr+p, "")
		if resp.StatusCode != 403 {
			t.Errorf("DELETE %s: %d, want held", p, resp.StatusCode)
		}
	}
	if got := rec.all(); len(got) != 0 {
		t.Errorf("upstream saw %+v", got)
	}
}

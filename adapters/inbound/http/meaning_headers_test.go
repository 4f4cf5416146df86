package httplistener_test

import (
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// An approval is for one statement. Headers that change what the upstream
// does with the request (a method override, the body's Content-Type or
// Content-Encoding, in any of their values) make another statement: an
// approved POST must never be spent by a POST the upstream runs as a DELETE.
func TestApprovalIsNotSpentByARequestWithOtherMeaningHeaders(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	writes := rule(t, "writes", []string{"POST", "DELETE", "PATCH"}, []string{"/v1/accounts/*"}, 0)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{writes}})
	url := "http://" + addr + "/v1/accounts/7"

	approved := func(hdr ...string) string {
		t.Helper()
		resp, _ := send(t, "POST", url, `{"a":1}`, hdr...)
		id := resp.Header.Get("X-Hoop-Approval-Id")
		if resp.StatusCode != 403 || id == "" {
			t.Fatalf("first send %v: %d", hdr, resp.StatusCode)
		}
		if err := sc.CP.Decide(id, domain.StatusApproved, ""); err != nil {
			t.Fatal(err)
		}
		return id
	}
	cases := []struct {
		name             string
		approved, resend []string
	}{
		{"override added", []string{"Content-Type", "application/json"},
			[]string{"Content-Type", "application/json", "X-HTTP-Method-Override", "DELETE"}},
		{"override changed", []string{"Content-Type", "application/json", "X-HTTP-Method", "PATCH"},
			[]string{"Content-Type", "application/json", "X-HTTP-Method", "DELETE"}},
		{"second content type", []string{"Content-Type", "application/json"},
			[]string{"Content-Type", "application/json", "Content-Type", "text/plain"}},
		{"content encoding", []string{"Content-Type", "application/json"},
			[]string{"Content-Type", "application/json", "Content-Encoding", "gzip"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := approved(c.approved...)
			before := len(rec.all())
			resp, _ := send(t, "POST", url, `{"a":1}`, c.resend...)
			if resp.StatusCode != 403 || resp.Header.Get("X-Hoop-Approval-Id") == id {
				t.Fatalf("resend with %v spent the approval of %v: %d", c.resend, c.approved, resp.StatusCode)
			}
			if n := len(rec.all()); n != before {
				t.Fatalf("upstream saw %d more requests", n-before)
			}
			// The identical resend still runs, once.
			if resp, _ := send(t, "POST", url, `{"a":1}`, c.approved...); resp.StatusCode != 200 {
				t.Fatalf("identical resend: %d", resp.StatusCode)
			}
		})
	}
}

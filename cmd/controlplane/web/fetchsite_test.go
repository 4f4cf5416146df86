package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
)

// A browser that sends no Origin (a privacy extension strips it) still sends
// Sec-Fetch-Site, which a page cannot forge: a cross-site or same-site form
// post must not approve with the approver's cached Basic credentials.
func TestCrossSiteFormWithoutOriginIsRefused(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	id := cp.File(servertest.DemoToken, "v1:aa", nil).JSON["id"].(string)
	for _, site := range []string{"cross-site", "same-site"} {
		req, err := http.NewRequest("POST", cp.URL+"/ui/reviews/"+id+"/approve", strings.NewReader(url.Values{}.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", site)
		req.SetBasicAuth("anyone", servertest.ApproverToken)
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("Sec-Fetch-Site %s: %d, want 403", site, resp.StatusCode)
		}
	}
	if r := cp.Do("GET", "/api/reviews/"+id, servertest.ApproverToken, nil); r.JSON["status"] != "PENDING" {
		t.Fatalf("a cross-site POST changed it: %s", r.Raw)
	}
}

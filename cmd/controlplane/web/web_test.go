package web_test

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
)

var t0 = time.Date(2026, 9, 29, 14, 2, 11, 0, time.UTC)

// browser is a cookie-less net/http client that signs in with Basic auth and
// does not follow redirects (the test follows them).
type browser struct {
	t      *testing.T
	cp     *servertest.CP
	c      *http.Client
	pass   string
	origin string
}

func newBrowser(t *testing.T, cp *servertest.CP, pass string) *browser {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &browser{t: t, cp: cp, c: c, pass: pass}
}

func (b *browser) do(method, path string, form url.Values) (int, http.Header, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.cp.URL+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if b.origin != "" {
		req.Header.Set("Origin", b.origin)
	}
	req.SetBasicAuth("anyone", b.pass)
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(raw)
}

// formAction finds the page's form that does action on id.
func formAction(t *testing.T, page, id, action string) string {
	t.Helper()
	re := regexp.MustCompile(`<form method="post" action="([^"]*/` + regexp.QuoteMeta(id) + `/` + action + `)">`)
	m := re.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page has no %s form for %s:\n%s", action, id, page)
	}
	return html.UnescapeString(m[1])
}

func TestApproveThroughThePage(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	cp.Clock.Set(t0)
	id := cp.File(servertest.DemoToken, "v1:aa", nil).JSON["id"].(string)
	b := newBrowser(t, cp, servertest.ApproverToken)

	code, _, page := b.do("GET", "/", nil)
	if code != 200 {
		t.Fatalf("GET /: %d %s", code, page)
	}
	for _, s := range []string{"demo", "billing-api", "billing-approvers", "DELETE /v1/invoices/42", "PENDING", "alice"} {
		if !strings.Contains(page, s) {
			t.Fatalf("the page lacks %q", s)
		}
	}
	cp.Clock.Set(t0.Add(3 * time.Minute))
	code, hdr, body := b.do("POST", formAction(t, page, id, "approve"), url.Values{})
	if code != http.StatusSeeOther {
		t.Fatalf("POST approve: %d %s", code, body)
	}
	_, _, page = b.do("GET", hdr.Get("Location"), nil)
	if !strings.Contains(page, "approved "+id) {
		t.Fatalf("no notice after approving:\n%s", page)
	}
	if !strings.Contains(page, "/"+id+"/revoke") || strings.Contains(page, "/"+id+"/approve") {
		t.Fatal("an APPROVED row must offer revoke only")
	}

	r := cp.Do("GET", "/api/sidecars/reviews/"+id, servertest.DemoToken, nil)
	if r.Status != 200 || r.JSON["status"] != "APPROVED" || r.JSON["decided_at"] != "2026-09-29T14:05:11Z" {
		t.Fatalf("read back: %d %s", r.Status, r.Raw)
	}
	if o := cp.Do("GET", "/api/sidecars/reviews/"+id, servertest.OtherToken, nil); o.Status != 404 || o.JSON["code"] != "not_found" {
		t.Fatalf("another Sidecar reads it: %d %s", o.Status, o.Raw)
	}
	g := cp.Do("GET", "/api/reviews/"+id, servertest.ApproverToken, nil)
	if g.JSON["decided_by"] != "alice" {
		t.Fatalf("decided_by: %s", g.Raw)
	}

	// approving twice shows the conflict instead of changing anything
	code, _, page = b.do("POST", "/ui/reviews/"+id+"/approve", url.Values{})
	if code != http.StatusConflict || !strings.Contains(page, "it is APPROVED") {
		t.Fatalf("approve twice: %d", code)
	}
	code, hdr, _ = b.do("POST", formAction(t, page, id, "revoke"), url.Values{})
	if code != http.StatusSeeOther {
		t.Fatalf("revoke: %d", code)
	}
	if r := cp.Do("GET", "/api/sidecars/reviews/"+id, servertest.DemoToken, nil); r.JSON["status"] != "REVOKED" {
		t.Fatalf("after revoke: %s", r.Raw)
	}
}

func TestRejectWithReasonThroughThePage(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	id := cp.File(servertest.DemoToken, "v1:aa", nil).JSON["id"].(string)
	b := newBrowser(t, cp, servertest.ApproverToken)
	_, _, page := b.do("GET", "/", nil)
	if !strings.Contains(page, `name="reason"`) {
		t.Fatal("the reject form has no reason field")
	}
	code, _, _ := b.do("POST", formAction(t, page, id, "reject"), url.Values{"reason": {"not during the freeze"}})
	if code != http.StatusSeeOther {
		t.Fatalf("reject: %d", code)
	}
	r := cp.Do("GET", "/api/sidecars/reviews/"+id, servertest.DemoToken, nil)
	if r.JSON["status"] != "REJECTED" || r.JSON["rejection_reason"] != "not during the freeze" {
		t.Fatalf("after reject: %s", r.Raw)
	}
}

func TestPageNeedsAnApproverToken(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	id := cp.File(servertest.DemoToken, "v1:aa", nil).JSON["id"].(string)
	for _, pass := range []string{"", "wrong", servertest.DemoToken} {
		b := newBrowser(t, cp, pass)
		if code, hdr, body := b.do("GET", "/", nil); code != 401 || !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Basic ") ||
			!strings.Contains(body, "the user name is ignored") {
			t.Fatalf("GET / with password %q: %d %q %q", pass, code, hdr.Get("WWW-Authenticate"), body)
		}
		if code, _, _ := b.do("POST", "/ui/reviews/"+id+"/approve", url.Values{}); code != 401 {
			t.Fatalf("POST with password %q: %d", pass, code)
		}
	}
	if r := cp.Do("GET", "/api/reviews/"+id, servertest.ApproverToken, nil); r.JSON["status"] != "PENDING" {
		t.Fatalf("an unauthenticated POST changed it: %s", r.Raw)
	}
}

func TestCrossOriginFormIsRefused(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	id := cp.File(servertest.DemoToken, "v1:aa", nil).JSON["id"].(string)
	b := newBrowser(t, cp, servertest.ApproverToken)
	for _, origin := range []string{"https://evil.example", "null", "http://127.0.0.1:1"} {
		b.origin = origin
		if code, _, _ := b.do("POST", "/ui/reviews/"+id+"/approve", url.Values{}); code != http.StatusForbidden {
			t.Fatalf("Origin %s: %d, want 403", origin, code)
		}
	}
	if r := cp.Do("GET", "/api/reviews/"+id, servertest.ApproverToken, nil); r.JSON["status"] != "PENDING" {
		t.Fatalf("a cross-origin POST changed it: %s", r.Raw)
	}
	b.origin = cp.URL // same origin, as a browser sends it
	if code, _, _ := b.do("POST", "/ui/reviews/"+id+"/approve", url.Values{}); code != http.StatusSeeOther {
		t.Fatalf("same-origin POST: %d", code)
	}
}

func TestStatementIsEscaped(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	cp.File(servertest.DemoToken, "v1:xss", map[string]any{"statement": `<script>alert(1)</script>`, "listener_name": `<b>l</b>`})
	b := newBrowser(t, cp, servertest.ApproverToken)
	_, hdr, page := b.do("GET", "/", nil)
	if strings.Contains(page, "<script>") || strings.Contains(page, "<b>l</b>") || !strings.Contains(page, "&lt;script&gt;") {
		t.Fatal("the statement is not escaped")
	}
	if !strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("CSP: %q", hdr.Get("Content-Security-Policy"))
	}
}

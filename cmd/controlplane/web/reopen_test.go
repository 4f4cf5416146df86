package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
)

// A rejected row has a Reopen button; a cross-origin post of it is refused
// and changes nothing; the same-origin post files a new PENDING request that
// the statement then finds, the page says so, the rejected row names it and
// loses its button, and a second post is refused with the reason.
func TestReopenThroughThePage(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	id := cp.File(servertest.DemoToken, "v1:aa", nil).JSON["id"].(string)
	b := newBrowser(t, cp, servertest.ApproverToken)
	b.origin = cp.URL // a browser's same-origin form post

	_, _, page := b.do("GET", "/", nil)
	if strings.Contains(page, "/"+id+"/reopen") {
		t.Fatal("a PENDING row must not offer reopen")
	}
	if code, _, _ := b.do("POST", formAction(t, page, id, "reject"), url.Values{"reason": {"not now"}}); code != http.StatusSeeOther {
		t.Fatalf("reject: %d", code)
	}
	_, _, page = b.do("GET", "/", nil)
	action := formAction(t, page, id, "reopen")

	b.origin = "https://evil.example"
	if code, _, _ := b.do("POST", action, url.Values{}); code != http.StatusForbidden {
		t.Fatalf("cross-origin reopen: %d, want 403", code)
	}
	if r := cp.File(servertest.DemoToken, "v1:aa", nil); r.JSON["id"] != id || r.JSON["status"] != "REJECTED" {
		t.Fatalf("a cross-origin post reopened it: %s", r.Raw)
	}

	b.origin = cp.URL
	code, hdr, body := b.do("POST", action, url.Values{})
	if code != http.StatusSeeOther {
		t.Fatalf("reopen: %d %s", code, body)
	}
	found := cp.File(servertest.DemoToken, "v1:aa", nil)
	newID, _ := found.JSON["id"].(string)
	if newID == id || found.JSON["status"] != "PENDING" || found.JSON["reused"] != true {
		t.Fatalf("after reopen the statement finds %s", found.Raw)
	}
	_, _, page = b.do("GET", hdr.Get("Location"), nil)
	if !strings.Contains(page, "reopened "+id+" as "+newID+" (PENDING)") {
		t.Fatalf("no notice after reopening:\n%s", page)
	}
	if !strings.Contains(page, "reopened as "+newID) || !strings.Contains(page, "reopened from "+id) ||
		!strings.Contains(page, "asked again by alice") {
		t.Fatalf("the rows do not link the rejection and its reopening:\n%s", page)
	}
	if strings.Contains(page, "/"+id+"/reopen") {
		t.Fatal("a reopened rejection must not offer reopen again")
	}
	formAction(t, page, newID, "approve") // the new request is decided like any other

	code, _, page = b.do("POST", "/ui/reviews/"+id+"/reopen", url.Values{})
	if code != http.StatusConflict || !strings.Contains(page, "cannot reopen "+id+": it was reopened already as "+newID) {
		t.Fatalf("second reopen: %d", code)
	}
	if code, _, _ := b.do("POST", "/ui/reviews/no-such-id/reopen", url.Values{}); code != http.StatusNotFound {
		t.Fatalf("reopen of an unknown id: %d", code)
	}
	if code, _, _ := newBrowser(t, cp, "wrong").do("POST", "/ui/reviews/"+newID+"/reopen", url.Values{}); code != http.StatusUnauthorized {
		t.Fatalf("reopen without an approver token: %d", code)
	}
}

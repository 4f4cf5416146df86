package web_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
)

// The page counts each status in its tab, shows time left only on a pending
// request, folds a long statement, and /ui/pending lists the pending ids.
func TestTabsTimeLeftFoldingAndPending(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	cp.Clock.Set(t0)
	pending := cp.File(servertest.DemoToken, "v1:p", map[string]any{"time_limit_seconds": 1800}).JSON["id"].(string)
	approved := cp.File(servertest.DemoToken, "v1:a", map[string]any{"time_limit_seconds": 1800}).JSON["id"].(string)
	long := cp.File(servertest.DemoToken, "v1:l", map[string]any{"statement": strings.Repeat("SELECT 1;\n", 20) + "DROP TABLE t"}).JSON["id"].(string)
	if a := cp.Do("POST", "/api/reviews/"+approved+"/approve", servertest.ApproverToken, nil); a.Status != 200 {
		t.Fatalf("approve: %d", a.Status)
	}
	cp.Clock.Set(t0.Add(3 * time.Minute))
	b := newBrowser(t, cp, servertest.ApproverToken)
	_, _, page := b.do("GET", "/", nil)
	for _, want := range []string{
		`<a href="/" aria-current="page">All <span class="count">3</span></a>`,
		`<a href="/?status=PENDING">Pending <span class="count">2</span></a>`,
		`<a href="/?status=APPROVED">Approved <span class="count">1</span></a>`,
		`<a href="/?status=EXPIRED">Expired <span class="count">0</span></a>`,
		`<span class="left">expires in 27 min</span>`,
		`Show the whole statement (21 lines, 212 characters)`,
		`data-pending="` + long + `,` + pending + `"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	card := regexp.MustCompile(`(?s)<article id="r-` + approved + `".*?</article>`).FindString(page)
	if card == "" || strings.Contains(card, "expires in") || strings.Contains(card, "<dt>Expires</dt>") || !strings.Contains(card, "<dt>Decided by</dt><dd>alice</dd>") {
		t.Errorf("the approved card shows time left or lacks who decided:\n%s", card)
	}
	_, hdr, body := b.do("GET", "/ui/pending", nil)
	var p struct{ IDs []string }
	if err := json.Unmarshal([]byte(body), &p); err != nil || len(p.IDs) != 2 || p.IDs[0] != long || p.IDs[1] != pending ||
		hdr.Get("Content-Type") != "application/json" {
		t.Errorf("/ui/pending: %s %v", body, hdr)
	}
	_, _, page = b.do("GET", "/?status=PENDING", nil)
	if strings.Contains(page, `id="r-`+approved+`"`) || !strings.Contains(page, `<a href="/?status=PENDING" aria-current="page">`) {
		t.Errorf("the PENDING filter shows other requests")
	}
	for _, asset := range []string{"/ui/page.css", "/ui/live.js"} {
		if code, _, _ := b.do("GET", asset, nil); code != 200 {
			t.Errorf("%s: %d", asset, code)
		}
	}
	nb := newBrowser(t, cp, "wrong")
	if code, _, _ := nb.do("GET", "/ui/pending", nil); code != 401 {
		t.Errorf("/ui/pending without a token: %d", code)
	}
}

// A request whose time limit lapsed while nobody decided it (its agent's
// client left, say) shows as expired, with when, and no "Decided" time or
// "Decided by": the store reads decided_at = expires_at for it (the API's
// contract), but no person decided. One approved and then expired keeps who
// decided it, and when.
func TestExpiredUndecidedShowsNoDecision(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	cp.Clock.Set(t0)
	lapsed := cp.File(servertest.DemoToken, "v1:x", map[string]any{"time_limit_seconds": 60}).JSON["id"].(string)
	approved := cp.File(servertest.DemoToken, "v1:y", map[string]any{"time_limit_seconds": 60}).JSON["id"].(string)
	if a := cp.Do("POST", "/api/reviews/"+approved+"/approve", servertest.ApproverToken, nil); a.Status != 200 {
		t.Fatalf("approve: %d", a.Status)
	}
	cp.Clock.Set(t0.Add(5 * time.Minute))
	b := newBrowser(t, cp, servertest.ApproverToken)
	_, _, page := b.do("GET", "/?status=EXPIRED", nil)
	card := regexp.MustCompile(`(?s)<article id="r-` + lapsed + `".*?</article>`).FindString(page)
	if card == "" || strings.Contains(card, "<dt>Decided") || !strings.Contains(card, "<dt>Expired</dt>") ||
		!strings.Contains(card, `datetime="`+t0.Add(time.Minute).UTC().Format(time.RFC3339)) {
		t.Errorf("the card of a request nobody decided shows a decision, or not when it expired:\n%s", card)
	}
	card = regexp.MustCompile(`(?s)<article id="r-` + approved + `".*?</article>`).FindString(page)
	if card == "" || !strings.Contains(card, "<dt>Decided</dt>") || !strings.Contains(card, "<dt>Decided by</dt><dd>alice</dd>") ||
		!strings.Contains(card, "<dt>Expired</dt>") {
		t.Errorf("the card of a request approved, then expired, lacks its decision or its expiry:\n%s", card)
	}
}

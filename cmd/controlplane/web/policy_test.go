package web_test

import (
	"html"
	"net/url"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/cmd/controlplane/policy"
	"github.com/hoophq/sidecar/cmd/controlplane/server"
	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
)

// The page under a two-of-two policy: dave (no group) is refused with the
// reason; alice's approval shows "1 of 2" and keeps the request PENDING;
// bob's approves it.
func TestPageShowsTheQuorum(t *testing.T) {
	cp := servertest.Start(t, "sqlite", func(o *server.Options) {
		o.Approvers = map[string]string{servertest.ApproverToken: "alice", "tok-bob": "bob", "tok-dave": "dave"}
		o.Policies = policy.Set{
			Policies: []policy.Policy{{Rule: "billing-*", Groups: []string{"dba"}, MinApprovals: 2, ForbidSelf: true,
				ReasonOn: []string{"approve"}}},
			Approvers: map[string]policy.Approver{"alice": {Name: "alice", Groups: []string{"dba"}},
				"bob": {Name: "bob", Groups: []string{"dba"}}},
		}
	})
	cp.Clock.Set(t0)
	id := cp.File(servertest.DemoToken, "v1:aa", nil).JSON["id"].(string)
	dave, alice, bob := newBrowser(t, cp, "tok-dave"), newBrowser(t, cp, servertest.ApproverToken), newBrowser(t, cp, "tok-bob")

	_, _, page := alice.do("GET", "/", nil)
	if !strings.Contains(page, `<span class="quorum">0 of 2</span>`) || !strings.Contains(page, "Reason (required to approve)") {
		t.Fatalf("the card does not show 0 of 2 and the approve reason box:\n%s", page)
	}
	approve := formAction(t, page, id, "approve")
	code, _, body := dave.do("POST", approve, url.Values{"reason": {"ok"}})
	if code != 403 || !strings.Contains(html.UnescapeString(body), "dave may not approve approval "+id) {
		t.Fatalf("dave: %d\n%s", code, body)
	}
	if code, _, body := alice.do("POST", approve, url.Values{}); code != 400 || !strings.Contains(body, "needs a reason to approve") {
		t.Fatalf("alice without a reason: %d\n%s", code, body)
	}
	code, hdr, _ := alice.do("POST", approve, url.Values{"reason": {"backup checked"}})
	if code != 303 || !strings.Contains(hdr.Get("Location"), "done=vote") {
		t.Fatalf("alice: %d %v", code, hdr)
	}
	_, _, page = alice.do("GET", hdr.Get("Location"), nil)
	if !strings.Contains(page, "recorded your approval of "+id) || !strings.Contains(page, `<span class="quorum">1 of 2</span>; alice (dba)`) ||
		!strings.Contains(page, "backup checked") || cp.Do("GET", "/api/reviews/"+id, servertest.ApproverToken, nil).JSON["status"] != "PENDING" {
		t.Fatalf("after alice:\n%s", page)
	}
	if code, hdr, _ := bob.do("POST", approve, url.Values{"reason": {"fine"}}); code != 303 || !strings.Contains(hdr.Get("Location"), "done=approve") {
		t.Fatalf("bob: %d %v", code, hdr)
	}
	if r := cp.Do("GET", "/api/reviews/"+id, servertest.ApproverToken, nil); r.JSON["status"] != "APPROVED" || r.JSON["decided_by"] != "bob" {
		t.Fatalf("after bob: %s", r.Raw)
	}
}

package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
)

// Through the Sidecar API: a claim to PROCESSING answers its lease, a renew
// extends it, and once it lapses a renew is refused, the request reads
// EXECUTED with settled_by lease in the approver API, and the page says the
// outcome is unknown.
func TestLapsedLeaseIsShownAsOutcomeUnknown(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	cp.Clock.Set(t0)
	id, _ := cp.File(servertest.DemoToken, "v1:lease", nil).JSON["id"].(string)
	if a := cp.Do("POST", "/api/reviews/"+id+"/approve", servertest.ApproverToken, map[string]any{}); a.Status != 200 {
		t.Fatalf("approve: %d %s", a.Status, a.Raw)
	}
	claim := cp.Do("POST", "/api/sidecars/reviews/"+id+"/claim", servertest.DemoToken,
		map[string]any{"fingerprint": "v1:lease", "spend_approval_on": "accepted", "claim_key": "k1"})
	if claim.Status != 200 || claim.JSON["lease_seconds"] != float64(60) || claim.JSON["lease_expires_at"] != "2026-09-29T14:03:11Z" {
		t.Fatalf("claim: %d %s; want the 60 s lease", claim.Status, claim.Raw)
	}
	cp.Clock.Set(t0.Add(50 * time.Second))
	renew := cp.Do("POST", "/api/sidecars/reviews/"+id+"/renew", servertest.DemoToken, map[string]any{"claim_key": "k1"})
	if renew.Status != 200 || renew.JSON["lease_expires_at"] != "2026-09-29T14:04:01Z" || renew.JSON["status"] != "PROCESSING" {
		t.Fatalf("renew: %d %s", renew.Status, renew.Raw)
	}
	if a := cp.Do("POST", "/api/sidecars/reviews/"+id+"/renew", servertest.DemoToken, map[string]any{}); a.Status != 400 {
		t.Fatalf("renew without a key: %d %s, want 400", a.Status, a.Raw)
	}
	cp.Clock.Set(t0.Add(110 * time.Second))
	if a := cp.Do("POST", "/api/sidecars/reviews/"+id+"/renew", servertest.DemoToken, map[string]any{"claim_key": "k1"}); a.Status != 409 {
		t.Fatalf("renew after the lapse: %d %s, want 409", a.Status, a.Raw)
	}
	review := cp.Do("GET", "/api/reviews/"+id, servertest.ApproverToken, nil)
	if review.JSON["status"] != "EXECUTED" || review.JSON["settled_by"] != "lease" {
		t.Fatalf("review after the lapse: %s", review.Raw)
	}
	_, _, page := newBrowser(t, cp, servertest.ApproverToken).do("GET", "/", nil)
	if !strings.Contains(page, "<dt>Outcome</dt><dd>unknown: the Sidecar stopped renewing its lease") {
		t.Fatalf("the page does not say why the request is EXECUTED:\n%s", page)
	}
}

package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
	"github.com/hoophq/sidecar/cmd/controlplane/store/storetest"
)

// Over the approver API, on both stores: a rejected statement is reused
// (the Sidecar files it again and gets the rejection) until a person reopens
// it; reopen answers 201 with the new PENDING request, which the Sidecar's
// next filing of the statement finds; the rejection stays readable, with its
// reason, on its own id.
func TestReopenOverTheApproverAPI(t *testing.T) {
	for _, kind := range storetest.Kinds {
		t.Run(kind, func(t *testing.T) {
			cp := servertest.Start(t, kind, nil)
			cp.Clock.Set(t0)
			id := cp.File(demo, "v1:drop", map[string]any{"time_limit_seconds": 1800}).JSON["id"].(string)
			want(t, cp.Do("POST", "/api/reviews/"+id+"/reject", approver, map[string]string{"reason": "not now"}), 200, "")
			if again := cp.File(demo, "v1:drop", nil); again.Status != 200 || again.JSON["id"] != id || again.JSON["status"] != "REJECTED" {
				t.Fatalf("before reopen: %s", again.Raw)
			}

			// approving the rejection is refused, and the answer says how to ask again
			refused := cp.Do("POST", "/api/reviews/"+id+"/approve", approver, nil)
			want(t, refused, 409, "conflict")
			if refused.JSON["message"] != "cannot approve approval "+id+": it is REJECTED (approve needs PENDING); to ask again, reopen it (controlplane reopen "+id+")" {
				t.Fatalf("approve of REJECTED: %s", refused.Raw)
			}

			cp.Clock.Set(t0.Add(time.Hour))
			ro := cp.Do("POST", "/api/reviews/"+id+"/reopen", approver, nil)
			want(t, ro, 201, "")
			newID, _ := ro.JSON["id"].(string)
			if newID == "" || newID == id || ro.JSON["status"] != "PENDING" || ro.JSON["previous_status"] != "REJECTED" ||
				ro.JSON["reopened_from"] != id || ro.JSON["reopened_by"] != "alice" || ro.JSON["decided_by"] != nil ||
				ro.JSON["decided_at"] != nil || ro.JSON["created_at"] != "2026-09-29T15:02:11Z" ||
				ro.JSON["expires_at"] != "2026-09-29T15:32:11Z" || ro.JSON["statement"] != "DELETE /v1/invoices/42" ||
				ro.JSON["sidecar"] != "demo" || ro.JSON["rejection_reason"] != nil {
				t.Fatalf("reopen answer: %s", ro.Raw)
			}
			found := cp.File(demo, "v1:drop", nil)
			if found.Status != 200 || found.JSON["id"] != newID || found.JSON["status"] != "PENDING" || found.JSON["reused"] != true {
				t.Fatalf("the statement after reopen: %s", found.Raw)
			}
			if strings.Contains(string(found.Raw), "reopened") {
				t.Fatalf("the Sidecar API shows approver-only keys: %s", found.Raw)
			}
			old := cp.Do("GET", "/api/reviews/"+id, approver, nil)
			if old.JSON["status"] != "REJECTED" || old.JSON["rejection_reason"] != "not now" || old.JSON["reopened_as"] != newID {
				t.Fatalf("the rejection after reopen: %s", old.Raw)
			}
			if r := cp.Do("GET", "/api/sidecars/reviews/"+id, demo, nil); r.JSON["status"] != "REJECTED" {
				t.Fatalf("the Sidecar reads the rejected id: %s", r.Raw)
			}

			again := cp.Do("POST", "/api/reviews/"+id+"/reopen", approver, nil)
			want(t, again, 409, "conflict")
			if again.JSON["message"] != "cannot reopen approval "+id+": it was reopened already as "+newID ||
				again.JSON["review"].(map[string]any)["id"] != id {
				t.Fatalf("second reopen: %s", again.Raw)
			}
			if r := cp.Do("POST", "/api/reviews/"+id+"/approve", approver, nil); r.JSON["message"] !=
				"cannot approve approval "+id+": it is REJECTED (approve needs PENDING); it was reopened as "+newID+": decide that one" {
				t.Fatalf("approve of a reopened rejection: %s", r.Raw)
			}
			pending := cp.Do("POST", "/api/reviews/"+newID+"/reopen", approver, nil)
			want(t, pending, 409, "conflict")
			if pending.JSON["message"] != "cannot reopen approval "+newID+": it is PENDING (reopen needs REJECTED or REVOKED)" {
				t.Fatalf("reopen of PENDING: %s", pending.Raw)
			}

			// approve the reopened one; it runs once; the next send files anew
			want(t, cp.Do("POST", "/api/reviews/"+newID+"/approve", approver, nil), 200, "")
			c := cp.Do("POST", "/api/sidecars/reviews/"+newID+"/claim", demo, map[string]any{"fingerprint": "v1:drop", "spend_approval_on": "sent"})
			want(t, c, 200, "")
			want(t, cp.Do("POST", "/api/sidecars/reviews/"+newID+"/claim", demo, map[string]any{"fingerprint": "v1:drop", "spend_approval_on": "sent"}), 409, "claim_lost")
			if n := cp.File(demo, "v1:drop", nil); n.Status != 201 || n.JSON["id"] == newID || n.JSON["id"] == id {
				t.Fatalf("after the reopened request ran: %s", n.Raw)
			}
		})
	}
}

// Reopen is the approver's: a Sidecar token, no token and an unknown id are
// refused, and a revoked approval reopens like a rejected one.
func TestReopenAuthAndRevoked(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	id := cp.File(demo, "v1:aa", nil).JSON["id"].(string)
	want(t, cp.Do("POST", "/api/reviews/"+id+"/approve", approver, nil), 200, "")
	want(t, cp.Do("POST", "/api/reviews/"+id+"/revoke", approver, nil), 200, "")
	want(t, cp.Do("POST", "/api/reviews/"+id+"/reopen", demo, nil), 401, "unauthorized")
	want(t, cp.Do("POST", "/api/reviews/"+id+"/reopen", "", nil), 401, "unauthorized")
	want(t, cp.Do("POST", "/api/reviews/no-such-id/reopen", approver, nil), 404, "not_found")
	want(t, cp.Do("POST", "/api/reviews/"+id+"/reopen", approver, "not json"), 400, "invalid")
	ro := cp.Do("POST", "/api/reviews/"+id+"/reopen", approver, nil)
	want(t, ro, 201, "")
	if ro.JSON["previous_status"] != "REVOKED" || ro.JSON["status"] != "PENDING" {
		t.Fatalf("reopen of REVOKED: %s", ro.Raw)
	}
	if r := cp.Do("GET", "/api/reviews/"+id, approver, nil); r.JSON["status"] != "REVOKED" || r.JSON["decided_by"] != "alice" {
		t.Fatalf("the revoked request keeps its decision: %s", r.Raw)
	}
}

package server_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/policy"
	"github.com/hoophq/sidecar/cmd/controlplane/server"
	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
)

// Tokens of the policy tests' approvers.
const (
	tokAlice = servertest.ApproverToken // alice: dba, identities alice, alice_admin
	tokBob   = "tok-approver-bob"       // bob: dba, payments
	tokDave  = "tok-approver-dave"      // dave: no group
)

// policyCP runs a Control Plane with the policy: payments-approvers
// needs two of dba/payments and a reason to reject; every other rule one
// approval of anyone.
func policyCP(t *testing.T) *servertest.CP {
	t.Helper()
	cp := servertest.Start(t, "sqlite", func(o *server.Options) {
		o.Approvers = map[string]string{tokAlice: "alice", tokBob: "bob", tokDave: "dave"}
		o.Policies = policy.Set{
			Policies: []policy.Policy{{Rule: "payments-*", Groups: []string{"dba", "payments"}, MinApprovals: 2,
				ReasonOn: []string{"reject"}, ForbidSelf: true},
				{Rule: "audit-*", Groups: []string{"dba", "payments"}, MinApprovals: 1, AllGroups: true}},
			Approvers: map[string]policy.Approver{
				"alice": {Name: "alice", Groups: []string{"dba"}, Identities: []string{"alice_admin"}},
				"bob":   {Name: "bob", Groups: []string{"dba", "payments"}},
				"dave":  {Name: "dave"},
			},
		}
	})
	cp.Clock.Set(t0)
	return cp
}

// Two of two over the approver API: dave is refused 403, alice's approval is
// kept ("approvals", "required": 2) while the Sidecar reads PENDING; alice
// again counts once; bob's approves it; the Sidecar's object has no
// approvals key.
func TestApproverAPIQuorum(t *testing.T) {
	cp := policyCP(t)
	id := cp.File(demo, "v1:aa", map[string]any{"approval_rule": "payments-approvers"}).JSON["id"].(string)
	path := "/api/reviews/" + id + "/approve"

	if a := cp.Do("POST", path, tokDave, nil); a.Status != 403 || a.JSON["code"] != policy.CodeNotEligible {
		t.Fatalf("dave: %d %s", a.Status, a.Raw)
	}
	a := cp.Do("POST", path, tokAlice, map[string]string{"reason": "checked the backup"})
	approvals, _ := a.JSON["approvals"].([]any)
	if a.Status != 200 || a.JSON["status"] != "PENDING" || a.JSON["required"] != float64(2) || len(approvals) != 1 ||
		a.JSON["decided_by"] != nil || a.JSON["already_approved"] != nil {
		t.Fatalf("alice: %d %s", a.Status, a.Raw)
	}
	first := approvals[0].(map[string]any)
	if first["approver"] != "alice" || first["group"] != "dba" || first["at"] != "2026-09-29T14:02:11Z" || first["reason"] != "checked the backup" {
		t.Fatalf("alice's approval: %v", first)
	}
	if r := cp.Do("GET", "/api/sidecars/reviews/"+id, demo, nil); r.Status != 200 || r.JSON["status"] != "PENDING" || r.JSON["approvals"] != nil {
		t.Fatalf("the Sidecar reads: %d %s", r.Status, r.Raw)
	}
	cp.Clock.Set(t0.Add(time.Minute))
	if a := cp.Do("POST", path, tokAlice, nil); a.Status != 200 || a.JSON["status"] != "PENDING" ||
		a.JSON["already_approved"] != true || len(a.JSON["approvals"].([]any)) != 1 {
		t.Fatalf("alice again: %d %s", a.Status, a.Raw)
	}
	if a := cp.Do("POST", path, tokBob, nil); a.Status != 200 || a.JSON["status"] != "APPROVED" || a.JSON["decided_by"] != "bob" ||
		len(a.JSON["approvals"].([]any)) != 2 || a.JSON["previous_status"] != "PENDING" {
		t.Fatalf("bob: %d %s", a.Status, a.Raw)
	}
	if r := cp.Do("GET", "/api/sidecars/reviews/"+id, demo, nil); r.JSON["status"] != "APPROVED" {
		t.Fatalf("the Sidecar reads: %s", r.Raw)
	}
}

// Self-approval by identity is 403; a rejection without the required reason
// is 400; with it, one eligible approver rejects it at once.
func TestApproverAPIRefusals(t *testing.T) {
	cp := policyCP(t)
	id := cp.File(demo, "v1:aa", map[string]any{"approval_rule": "payments-approvers", "client_identity": "alice_admin"}).JSON["id"].(string)
	if a := cp.Do("POST", "/api/reviews/"+id+"/approve", tokAlice, nil); a.Status != 403 || a.JSON["code"] != policy.CodeSelfApproval {
		t.Fatalf("alice approves her own: %d %s", a.Status, a.Raw)
	}
	if a := cp.Do("POST", "/api/reviews/"+id+"/reject", tokBob, nil); a.Status != 400 || a.JSON["code"] != policy.CodeReasonRequired {
		t.Fatalf("reject without a reason: %d %s", a.Status, a.Raw)
	}
	if a := cp.Do("POST", "/api/reviews/"+id+"/reject", tokBob, map[string]string{"reason": "no"}); a.Status != 200 || a.JSON["status"] != "REJECTED" {
		t.Fatalf("reject: %d %s", a.Status, a.Raw)
	}
	// all_groups_must_approve: alice (dba) leaves payments missing; bob covers it
	audit := cp.File(demo, "v1:cc", map[string]any{"approval_rule": "audit-log"}).JSON["id"].(string)
	if a := cp.Do("POST", "/api/reviews/"+audit+"/approve", tokAlice, nil); a.Status != 200 || a.JSON["status"] != "PENDING" ||
		fmt.Sprint(a.JSON["missing_groups"]) != "[payments]" || a.JSON["required"] != float64(1) {
		t.Fatalf("alice on audit: %d %s", a.Status, a.Raw)
	}
	if a := cp.Do("POST", "/api/reviews/"+audit+"/approve", tokBob, nil); a.Status != 200 || a.JSON["status"] != "APPROVED" || a.JSON["missing_groups"] != nil {
		t.Fatalf("bob on audit: %d %s", a.Status, a.Raw)
	}
	// a rule no policy matches: one approval of anyone
	other := cp.File(demo, "v1:bb", nil).JSON["id"].(string)
	if a := cp.Do("POST", "/api/reviews/"+other+"/approve", tokDave, nil); a.Status != 200 || a.JSON["status"] != "APPROVED" || a.JSON["required"] != float64(1) {
		t.Fatalf("default policy: %d %s", a.Status, a.Raw)
	}
}

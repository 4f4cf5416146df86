package policy_test

import (
	"net/http"
	"testing"

	"github.com/hoophq/sidecar/cmd/controlplane/policy"
	"github.com/hoophq/sidecar/cmd/controlplane/store"
)

var (
	alice = policy.Approver{Name: "alice", Groups: []string{"dba"}, Identities: []string{"alice", "alice_admin"}}
	bob   = policy.Approver{Name: "bob", Groups: []string{"dba", "payments"}}
	carol = policy.Approver{Name: "carol", Groups: []string{"payments"}}
	dave  = policy.Approver{Name: "dave", Groups: []string{"web"}}

	payments = policy.Policy{Rule: "payments-*", Groups: []string{"dba", "payments"}, MinApprovals: 2,
		ReasonOn: []string{"reject"}, ForbidSelf: true}
	set = policy.Set{Policies: []policy.Policy{payments, {Rule: "*", MinApprovals: 1}}}
)

// The first policy whose glob matches governs; none matching is Default.
func TestForPicksTheFirstMatchingPolicy(t *testing.T) {
	for rule, want := range map[string]string{"payments-approvers": "payments-*", "db-destructive": "*"} {
		if got := set.For(rule).Rule; got != want {
			t.Errorf("For(%q) = %q, want %q", rule, got, want)
		}
	}
	if got := (policy.Set{}).For("anything"); got.Rule != "*" || got.Required() != 1 || !got.ForbidSelf {
		t.Errorf("no policies: %+v, want Default", got)
	}
}

func votes(as ...policy.Approver) []store.Vote {
	var out []store.Vote
	for _, a := range as {
		out = append(out, store.Vote{Approver: a.Name, Groups: payments.GroupsOf(a)})
	}
	return out
}

// Met counts distinct approvers, and with all_groups_must_approve each group.
func TestMetCountsDistinctApproversAndGroups(t *testing.T) {
	all := payments
	all.AllGroups = true
	for _, c := range []struct {
		p    policy.Policy
		vs   []store.Vote
		want bool
	}{
		{payments, votes(alice), false},
		{payments, votes(alice, alice), false},
		{payments, votes(alice, bob), true},
		{all, votes(alice, alice), false},
		{all, votes(alice, bob), true}, // bob is in payments too
		{all, votes(bob, alice), true},
		{all, votes(alice, policy.Approver{Name: "erin", Groups: []string{"dba"}}), false},
		{all, votes(alice, carol), true},
	} {
		if got := c.p.Met(c.vs); got != c.want {
			t.Errorf("%+v all=%v: Met = %v, want %v", c.vs, c.p.AllGroups, got, c.want)
		}
	}
	if got := all.MissingGroups(votes(alice)); len(got) != 1 || got[0] != "payments" || payments.MissingGroups(votes(alice)) != nil {
		t.Errorf("MissingGroups: %v", got)
	}
	three := policy.Policy{Groups: []string{"a", "b", "c"}, MinApprovals: 2, AllGroups: true}
	if three.Required() != 2 || payments.Required() != 2 || (policy.Policy{}).Required() != 1 {
		t.Errorf("Required: %d %d %d", three.Required(), payments.Required(), policy.Policy{}.Required())
	}
}

// Check refuses an approver outside the groups (403), the request's own
// client under forbid_self_approval (403, by name or identity), and a
// missing required reason (400).
func TestCheckRefusesWithStatusAndCode(t *testing.T) {
	for _, c := range []struct {
		a                      policy.Approver
		action, reason, client string
		status                 int
		code                   string
	}{
		{dave, "approve", "", "agent", http.StatusForbidden, policy.CodeNotEligible},
		{dave, "revoke", "", "agent", http.StatusForbidden, policy.CodeNotEligible},
		{alice, "approve", "", "alice", http.StatusForbidden, policy.CodeSelfApproval},
		{alice, "approve", "", "alice_admin", http.StatusForbidden, policy.CodeSelfApproval},
		{bob, "reject", "no", "bob", http.StatusForbidden, policy.CodeSelfApproval},
		{bob, "reject", "", "agent", http.StatusBadRequest, policy.CodeReasonRequired},
		{bob, "reject", "not now", "agent", 0, ""},
		{bob, "approve", "", "agent", 0, ""},
		{alice, "approve", "", "", 0, ""},
		{alice, "revoke", "", "alice", 0, ""},
	} {
		r := payments.Check(c.a, c.action, c.reason, "id-1", c.client)
		switch {
		case c.status == 0 && r != nil:
			t.Errorf("%s %s (client %q): refused %v", c.a.Name, c.action, c.client, r)
		case c.status != 0 && (r == nil || r.Status != c.status || r.Code != c.code || r.Message == ""):
			t.Errorf("%s %s (client %q): %+v, want %d %s", c.a.Name, c.action, c.client, r, c.status, c.code)
		}
	}
	self := payments
	self.ForbidSelf = false
	if r := self.Check(alice, "approve", "", "id-1", "alice"); r != nil {
		t.Errorf("forbid_self_approval false: %v", r)
	}
	if r := (policy.Policy{}).Check(dave, "approve", "", "id-1", "agent"); r != nil {
		t.Errorf("a policy without groups: %v", r)
	}
}

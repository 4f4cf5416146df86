package cpconfig

import (
	"strings"
	"testing"
)

const withPolicies = `
sidecars: [{name: demo, token: t0}]
approvers:
  - {name: alice, token_env: CP_TEST_ALICE, groups: [dba], slack_user: U024BE7LH, email: alice@example.com, identities: [alice, alice_admin]}
  - {name: bob,   token: t2, groups: [dba, payments]}
  - {name: dave,  token: t3}
approval_policies:
  - rule: payments-approvers
    groups: [dba, payments]
    min_approvals: 2
    all_groups_must_approve: false
    require_reason: [reject]
    forbid_self_approval: true
  - rule: "*"
`

// The example parses: policies in order with their defaults, and
// the approvers' groups and identities by name.
func TestParseApprovalPolicies(t *testing.T) {
	t.Setenv("CP_TEST_ALICE", "t1")
	c, err := Parse([]byte(withPolicies))
	if err != nil {
		t.Fatal(err)
	}
	ps := c.Policies.Policies
	if len(ps) != 2 || ps[0].Rule != "payments-approvers" || ps[0].MinApprovals != 2 || !ps[0].ForbidSelf ||
		strings.Join(ps[0].ReasonOn, ",") != "reject" || ps[1].Rule != "*" || ps[1].MinApprovals != 1 || !ps[1].ForbidSelf {
		t.Fatalf("policies: %+v", ps)
	}
	a := c.Policies.Approvers["alice"]
	if strings.Join(a.Groups, ",") != "dba" || strings.Join(a.Identities, ",") != "alice,alice_admin" || c.Approvers["t1"] != "alice" {
		t.Fatalf("alice: %+v %v", a, c.Approvers)
	}
	if got := c.Policies.For("payments-approvers").Required(); got != 2 {
		t.Fatalf("required %d", got)
	}
}

func TestPolicyErrorsNameThePath(t *testing.T) {
	t.Setenv("CP_TEST_ALICE", "t1")
	for _, c := range []struct{ from, to, want string }{
		{"min_approvals: 2", "min_approvals: 0", "approval_policies[0].min_approvals: 0 is less than 1"},
		{"min_approvals: 2", "min_approvals: 3", "approval_policies[0].min_approvals: 3, but only 2 approvers may decide"},
		{"groups: [dba, payments]\n", "groups: [dba, ops]\n", `approval_policies[0].groups[1]: no approver is in group "ops"`},
		{"require_reason: [reject]", "require_reason: [revoke]", `approval_policies[0].require_reason[0]: "revoke" is neither approve nor reject`},
		{"rule: payments-approvers", "rule: \"pay[\"", `approval_policies[0].rule: "pay[" is not a glob`},
		{"rule: payments-approvers", "rule: \"*\"", `approval_policies[1].rule: "*" is already the rule of approval_policies[0]`},
		{"  - rule: \"*\"\n", "  - {groups: [dba]}\n", "approval_policies[1].rule: missing"},
		{"slack_user: U024BE7LH", "slack_user: alice", `approvers[0].slack_user: "alice" is not a Slack member id`},
		{"email: alice@example.com", "email: alice", `approvers[0].email: "alice" is not an e-mail address`},
		{"identities: [alice, alice_admin]", "identities: [alice, \"\"]", "approvers[0].identities[1]: must not be empty"},
		{"groups: [dba, payments]}", "groups: [dba, \"pay ments\"]}", `approvers[1].groups[1]: "pay ments" is not a group name`},
		{"all_groups_must_approve: false", "all_groups_must_approve: true\n    bogus: 1", `approval_policies[0].bogus: unknown field "bogus"`},
		{"min_approvals: 2", "min_approvals: two", "line 10"},
	} {
		y := strings.Replace(withPolicies, c.from, c.to, 1)
		if y == withPolicies {
			t.Fatalf("%q is not in the example", c.from)
		}
		if _, err := Parse([]byte(y)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: %v, want %q", c.from, c.to, err, c.want)
		}
	}
	// a Sidecar takes no approver keys
	_, err := Parse([]byte("sidecars: [{name: demo, token: t0, groups: [dba]}]\napprovers: [{name: x, token: t1}]"))
	if err == nil || !strings.Contains(err.Error(), `sidecars[0].groups: unknown field "groups"`) {
		t.Errorf("groups on a Sidecar: %v", err)
	}
}

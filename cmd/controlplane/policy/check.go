package policy

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Refusal is why an approver may not take an action on a request: Status
// (403 or 400) and Code are what the approver API answers, Message says it
// to a person.
type Refusal struct {
	Status  int
	Code    string
	Message string
}

func (r *Refusal) Error() string { return r.Message }

// Codes of a Refusal.
const (
	CodeNotEligible    = "not_eligible"    // 403: in none of the policy's groups
	CodeSelfApproval   = "self_approval"   // 403: the approver is the request's client
	CodeReasonRequired = "reason_required" // 400: the policy needs a reason
)

// Check says whether approver a may take action ("approve", "reject" or
// "revoke") with reason on request id, whose client identity is client,
// under p; nil when it may. Revoke takes back an approval before it is used
// and needs only the groups.
func (p Policy) Check(a Approver, action, reason, id, client string) *Refusal {
	if len(p.Groups) > 0 && len(p.GroupsOf(a)) == 0 {
		return &Refusal{http.StatusForbidden, CodeNotEligible, fmt.Sprintf(
			"%s may not %s approval %s: its policy (rule %q) lets only the groups %s decide, and %s is in none of them",
			a.Name, action, id, p.Rule, strings.Join(p.Groups, ", "), a.Name)}
	}
	if action == "revoke" {
		return nil
	}
	if p.ForbidSelf && client != "" && (a.Name == client || slices.Contains(a.Identities, client)) {
		return &Refusal{http.StatusForbidden, CodeSelfApproval, fmt.Sprintf(
			"%s may not %s approval %s: its client identity %q is %s's own (forbid_self_approval)",
			a.Name, action, id, client, a.Name)}
	}
	if reason == "" && slices.Contains(p.ReasonOn, action) {
		return &Refusal{http.StatusBadRequest, CodeReasonRequired, fmt.Sprintf(
			"approval %s needs a reason to %s (its policy, rule %q, has require_reason: [%s])",
			id, action, p.Rule, strings.Join(p.ReasonOn, ", "))}
	}
	return nil
}

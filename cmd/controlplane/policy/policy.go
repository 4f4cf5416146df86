package policy

import (
	"path"
	"slices"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
)

// Approver is one approver of the config: its name, the groups it is in and
// the client identities that are this person (name included implicitly).
type Approver struct {
	Name       string
	Groups     []string
	Identities []string
}

// Policy is one approval_policies entry, defaults applied.
type Policy struct {
	// Rule is a glob (path.Match) over the Sidecar's approval_rule.
	Rule string
	// Groups may decide; empty means every approver.
	Groups []string
	// MinApprovals is the number of distinct approvers needed (at least 1).
	MinApprovals int
	// AllGroups needs, besides MinApprovals, an approval from a member of
	// each of Groups.
	AllGroups bool
	// ReasonOn holds "approve" and/or "reject": the actions that need a reason.
	ReasonOn []string
	// ForbidSelf refuses an approver whose name or identities equal the
	// request's client identity.
	ForbidSelf bool
	// RemindAfter, when > 0, announces a request again once it has been
	// PENDING this long (package notify, approval.reminder).
	RemindAfter time.Duration
	// EscalateTo names the webhook the reminder goes to ("": every webhook).
	EscalateTo string
}

// Default is the policy of a request no configured policy matches: any
// approver, one approval, no self-approval.
var Default = Policy{Rule: "*", MinApprovals: 1, ForbidSelf: true}

// Set is the config's policies in order, and its approvers by name.
type Set struct {
	Policies  []Policy
	Approvers map[string]Approver
}

// For returns the first policy whose Rule matches rule, else Default.
func (s Set) For(rule string) Policy {
	for _, p := range s.Policies {
		if ok, err := path.Match(p.Rule, rule); err == nil && ok {
			return p
		}
	}
	return Default
}

// Approver returns the named approver; one missing from the set (a caller
// the config does not describe) is in no group and has no identities.
func (s Set) Approver(name string) Approver {
	if a, ok := s.Approvers[name]; ok {
		return a
	}
	return Approver{Name: name}
}

// Required is how many distinct approvers p needs (MinApprovals, at least
// 1). With AllGroups the approvals must also cover every group, which one
// approver in several groups may do alone, so it is not counted here.
func (p Policy) Required() int { return max(p.MinApprovals, 1) }

// GroupsOf returns the groups of p that a is in, in p's order; nil when p
// has no groups (everyone may decide).
func (p Policy) GroupsOf(a Approver) []string {
	var out []string
	for _, g := range p.Groups {
		if slices.Contains(a.Groups, g) {
			out = append(out, g)
		}
	}
	return out
}

// MissingGroups returns, with AllGroups, the groups of p that no vote
// counts for yet, in p's order; nil otherwise.
func (p Policy) MissingGroups(votes []store.Vote) []string {
	if !p.AllGroups {
		return nil
	}
	var out []string
	for _, g := range p.Groups {
		if !slices.ContainsFunc(votes, func(v store.Vote) bool { return slices.Contains(v.Groups, g) }) {
			out = append(out, g)
		}
	}
	return out
}

// Met reports whether votes (one per approver) satisfy p: at least
// MinApprovals distinct approvers and, with AllGroups, every group of p
// among the votes' groups. An approver in two groups counts for both.
func (p Policy) Met(votes []store.Vote) bool {
	seen := map[string]bool{}
	for _, v := range votes {
		seen[v.Approver] = true
	}
	return len(seen) >= p.Required() && len(p.MissingGroups(votes)) == 0
}

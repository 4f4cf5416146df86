package cpconfig

import (
	"errors"
	"fmt"
	"net/mail"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/policy"
)

// ApproverFile is one approvers entry: a Principal plus who the person is.
type ApproverFile struct {
	Principal `yaml:",inline"`
	// Groups name the teams the approver is in (approval_policies[].groups).
	Groups []string `yaml:"groups"`
	// Identities are the client identities (database logins, …) that are
	// this person, for forbid_self_approval; the name counts as one too.
	Identities []string `yaml:"identities"`
	// SlackUser (a Slack member id such as U024BE7LH) and Email are kept
	// for notifications; optional.
	SlackUser string `yaml:"slack_user"`
	Email     string `yaml:"email"`
}

// PolicyFile is one approval_policies entry as written.
type PolicyFile struct {
	Rule                 string   `yaml:"rule"`
	Groups               []string `yaml:"groups"`
	MinApprovals         *int     `yaml:"min_approvals"`
	AllGroupsMustApprove bool     `yaml:"all_groups_must_approve"`
	RequireReason        []string `yaml:"require_reason"`
	ForbidSelfApproval   *bool    `yaml:"forbid_self_approval"`
	// RemindAfter (a Go duration) announces a request still PENDING this
	// long again, to EscalateTo (a webhook's name) when set.
	RemindAfter string `yaml:"remind_after"`
	EscalateTo  string `yaml:"escalate_to"`
}

var (
	groupName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	slackUser = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)
)

// approverSet checks the approvers' groups, identities, slack_user and
// email, and returns them by name.
func approverSet(as []ApproverFile) (map[string]policy.Approver, error) {
	out := map[string]policy.Approver{}
	for i, a := range as {
		p := fmt.Sprintf("approvers[%d]", i)
		for j, g := range a.Groups {
			if !groupName.MatchString(g) {
				return nil, fmt.Errorf("%s.groups[%d]: %q is not a group name (letters, digits, '.', '_', '-')", p, j, g)
			}
		}
		for j, id := range a.Identities {
			if strings.TrimSpace(id) == "" {
				return nil, fmt.Errorf("%s.identities[%d]: must not be empty", p, j)
			}
		}
		if a.SlackUser != "" && !slackUser.MatchString(a.SlackUser) {
			return nil, fmt.Errorf("%s.slack_user: %q is not a Slack member id such as U024BE7LH", p, a.SlackUser)
		}
		if a.Email != "" {
			if m, err := mail.ParseAddress(a.Email); err != nil || m.Address != a.Email {
				return nil, fmt.Errorf("%s.email: %q is not an e-mail address such as alice@example.com", p, a.Email)
			}
		}
		out[a.Name] = policy.Approver{Name: a.Name, Groups: a.Groups, Identities: a.Identities}
	}
	return out, nil
}

// policies checks approval_policies against the approvers and applies the
// defaults (min_approvals 1, forbid_self_approval true).
func policies(fs []PolicyFile, approvers map[string]policy.Approver) ([]policy.Policy, error) {
	var out []policy.Policy
	rules := map[string]int{}
	for i, f := range fs {
		p := fmt.Sprintf("approval_policies[%d]", i)
		if strings.TrimSpace(f.Rule) == "" {
			return nil, errors.New(p + `.rule: missing: the Sidecar's approval_rule this policy governs, a glob ("*" for every rule)`)
		}
		if _, err := path.Match(f.Rule, ""); err != nil {
			return nil, fmt.Errorf("%s.rule: %q is not a glob: %v", p, f.Rule, err)
		}
		if j, dup := rules[f.Rule]; dup {
			return nil, fmt.Errorf("%s.rule: %q is already the rule of approval_policies[%d], which comes first and wins", p, f.Rule, j)
		}
		rules[f.Rule] = i
		pol := policy.Policy{Rule: f.Rule, Groups: f.Groups, MinApprovals: 1, AllGroups: f.AllGroupsMustApprove,
			ReasonOn: f.RequireReason, ForbidSelf: f.ForbidSelfApproval == nil || *f.ForbidSelfApproval}
		eligible := map[string]bool{}
		for j, g := range f.Groups {
			members := 0
			for _, a := range approvers {
				if slices.Contains(a.Groups, g) {
					members++
					eligible[a.Name] = true
				}
			}
			if members == 0 {
				return nil, fmt.Errorf("%s.groups[%d]: no approver is in group %q", p, j, g)
			}
		}
		if len(f.Groups) == 0 {
			for name := range approvers {
				eligible[name] = true
			}
		}
		if f.AllGroupsMustApprove && len(f.Groups) == 0 {
			return nil, errors.New(p + ".all_groups_must_approve: needs groups")
		}
		if f.MinApprovals != nil {
			if *f.MinApprovals < 1 {
				return nil, fmt.Errorf("%s.min_approvals: %d is less than 1", p, *f.MinApprovals)
			}
			pol.MinApprovals = *f.MinApprovals
		}
		if pol.MinApprovals > len(eligible) {
			return nil, fmt.Errorf("%s.min_approvals: %d, but only %d approvers may decide under this policy: it could never be met",
				p, pol.MinApprovals, len(eligible))
		}
		for j, a := range f.RequireReason {
			if a != "approve" && a != "reject" {
				return nil, fmt.Errorf("%s.require_reason[%d]: %q is neither approve nor reject", p, j, a)
			}
		}
		if f.RemindAfter != "" {
			d, err := time.ParseDuration(f.RemindAfter)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("%s.remind_after: %q is not a positive duration such as 15m", p, f.RemindAfter)
			}
			pol.RemindAfter = d
		}
		if f.EscalateTo != "" && pol.RemindAfter == 0 {
			return nil, errors.New(p + ".escalate_to: needs remind_after (the reminder is what escalates)")
		}
		pol.EscalateTo = f.EscalateTo
		out = append(out, pol)
	}
	return out, nil
}

package domain

// Verdict is the outcome of Evaluate.
type Verdict int

// The three outcomes of rule evaluation.
const (
	VerdictAllow Verdict = iota
	VerdictPolicy
	VerdictApproval
)

// The audit decisions of a report-only rule's match (Reported.Decision).
const (
	WouldDeny = "would_deny"
	WouldHold = "would_hold"
)

// Reported is one report-only rule that matched a statement: the rule's
// name and what it would have done (WouldDeny for a policy rule, WouldHold
// for an approval rule).
type Reported struct {
	Rule     string
	Decision string
}

// Evaluation is Evaluate's answer: the verdict and the rule that decided it.
type Evaluation struct {
	Verdict  Verdict
	Policy   *PolicyRule
	Approval *ApprovalRule
	// Reported are the report-only rules that matched, in the order they
	// were asked, up to the rule that decided (every one when none did).
	Reported []Reported
	// Tentative is set when the rules depend on Facts that Evaluate was not
	// given: the verdict is then only a bound (see Evaluate) and must be
	// reached again with EvaluateWith before anything is decided on it.
	Tentative bool
}

// EvaluateWith applies a listener's rules to one statement: analysis a and
// facts f. Report-only rules never decide: their matches are collected in
// Reported and evaluation goes on. Otherwise the first matching policy rule
// denies outright; else the first matching approval rule holds the statement
// for a person; else it is allowed. An analysis with Parts is decided by its
// strictest part (policy, then approval, then allow; the first part among
// equals), with the report-only matches of every part.
func EvaluateWith(a Analysis, f Facts, policies []PolicyRule, approvals []ApprovalRule) Evaluation {
	return evaluate(a, &f, policies, approvals)
}

// Evaluate is EvaluateWith for a caller that does not know the statement's
// facts yet (an adapter deciding whether to read a payload, or which part of
// a unit decides it). When no rule has identities or text it is exact.
// Otherwise it is Tentative, and a bound: its verdict is VerdictAllow only
// when no rule can match whatever the facts; VerdictApproval when some
// enforcing approval rule can match and no rule is certain to deny, so
// that a payload the final verdict may need is read; else VerdictPolicy.
func Evaluate(a Analysis, policies []PolicyRule, approvals []ApprovalRule) Evaluation {
	return evaluate(a, nil, policies, approvals)
}

// Enforces reports whether any of the rules is not report-only: a listener
// whose rules are all report-only decides as one without rules (FailsClosed's
// hasRules).
func Enforces(policies []PolicyRule, approvals []ApprovalRule) bool {
	return anyRule(policies, approvals, func(m *Match, reportOnly bool) bool { return !reportOnly })
}

// EveryPartCounts reports whether a unit of several statements must be
// decided with every part's analysis (Analysis.Parts) rather than its
// strictest part's alone: when the verdict depends on facts not known yet
// (DependsOnFacts), or when a report-only rule may match a part that does
// not decide the unit.
func EveryPartCounts(policies []PolicyRule, approvals []ApprovalRule) bool {
	return anyRule(policies, approvals, func(m *Match, reportOnly bool) bool { return reportOnly || m.needsFacts() })
}

// DependsOnFacts reports whether any of the rules has identities or text,
// so that its verdict needs Facts.
func DependsOnFacts(policies []PolicyRule, approvals []ApprovalRule) bool {
	return anyRule(policies, approvals, func(m *Match, _ bool) bool { return m.needsFacts() })
}

// anyRule reports whether f holds for any policy or approval rule (its
// match and whether it is report-only).
func anyRule(policies []PolicyRule, approvals []ApprovalRule, f func(m *Match, reportOnly bool) bool) bool {
	for i := range policies {
		if f(&policies[i].Match, policies[i].ReportOnly) {
			return true
		}
	}
	for i := range approvals {
		if f(&approvals[i].Match, approvals[i].ReportOnly) {
			return true
		}
	}
	return false
}

func evaluate(a Analysis, f *Facts, policies []PolicyRule, approvals []ApprovalRule) Evaluation {
	if len(a.Parts) > 0 {
		return strictest(a.Parts, f, policies, approvals)
	}
	if f == nil && DependsOnFacts(policies, approvals) {
		return bound(a, policies, approvals)
	}
	var ff Facts
	if f != nil {
		ff = *f
	}
	var ev Evaluation
	for i := range policies {
		if !policies[i].Match.MatchesWith(a, ff) {
			continue
		}
		if policies[i].ReportOnly {
			ev.Reported = append(ev.Reported, Reported{policies[i].Name, WouldDeny})
			continue
		}
		ev.Verdict, ev.Policy = VerdictPolicy, &policies[i]
		return ev
	}
	for i := range approvals {
		if !approvals[i].Match.MatchesWith(a, ff) {
			continue
		}
		if approvals[i].ReportOnly {
			ev.Reported = append(ev.Reported, Reported{approvals[i].Name, WouldHold})
			continue
		}
		ev.Verdict, ev.Approval = VerdictApproval, &approvals[i]
		return ev
	}
	return ev
}

// bound is Evaluate's answer without facts when the rules need them (see
// Evaluate): conditions on facts are taken to hold, report-only rules are
// left for EvaluateWith.
func bound(a Analysis, policies []PolicyRule, approvals []ApprovalRule) Evaluation {
	ev := Evaluation{Tentative: true}
	for i := range policies {
		p := &policies[i]
		if p.ReportOnly || !p.Match.Matches(a) {
			continue
		}
		if ev.Policy == nil {
			ev.Policy = p
		}
		if !p.Match.needsFacts() { // certain to deny: no approval rule is asked
			ev.Verdict = VerdictPolicy
			return ev
		}
	}
	for i := range approvals {
		if r := &approvals[i]; !r.ReportOnly && r.Match.Matches(a) {
			ev.Verdict, ev.Approval = VerdictApproval, r
			return ev
		}
	}
	if ev.Policy != nil {
		ev.Verdict = VerdictPolicy
	}
	return ev
}

// strictest decides a unit by its strictest part (EvaluateWith).
func strictest(parts []Analysis, f *Facts, policies []PolicyRule, approvals []ApprovalRule) Evaluation {
	var out Evaluation
	var reported []Reported
	for _, p := range parts {
		ev := evaluate(p, f, policies, approvals)
		for _, r := range ev.Reported {
			if !hasReported(reported, r) {
				reported = append(reported, r)
			}
		}
		out.Tentative = out.Tentative || ev.Tentative
		if rank(ev.Verdict) > rank(out.Verdict) {
			out.Verdict, out.Policy, out.Approval = ev.Verdict, ev.Policy, ev.Approval
		}
	}
	out.Reported = reported
	return out
}

// rank orders verdicts by strictness.
func rank(v Verdict) int {
	switch v {
	case VerdictPolicy:
		return 2
	case VerdictApproval:
		return 1
	}
	return 0
}

func hasReported(list []Reported, r Reported) bool {
	for _, x := range list {
		if x == r {
			return true
		}
	}
	return false
}

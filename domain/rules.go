package domain

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// ActionUnknown is the action an analyzer reports for a statement it could
// not read (or whose text it cannot see, such as SQL built at run time): the
// same word on every protocol, so one rule listing it covers them all.
const ActionUnknown = "UNKNOWN"

// Analysis is what a protocol's analyzer reads from one statement, in terms
// rules can match. For SQL: Actions are statement kinds (DROP, DELETE,
// TRUNCATE, UPDATE, …), Targets are relation names and Functions are called
// functions. For http: Actions = [method], Targets = [path]. For grpc:
// Actions = ["CALL"], Targets = [full method name].
//
// Effects are the protocol-blind words of effects.go (DELETE, UNBOUNDED,
// RUNS_CODE, …) for the same statement: what rules written once for every
// protocol match. An analysis whose Actions hold ActionUnknown carries the
// UNKNOWN effect whether or not Effects lists it.
type Analysis struct {
	Actions   []string
	Targets   []string
	Functions []string
	Effects   []string
}

// Match says which statements a rule covers. Each non-empty list must match
// (AND across lists); inside a list any entry may match (OR). An all-empty
// Match matches every statement.
//
// Actions and Effects compare case-insensitively. Targets and Functions
// are globs: `*`
// matches within one path segment (no '/'), `**` matches anything, `?` one
// character other than '/'; they compare case-sensitively for targets and
// case-insensitively for functions.
type Match struct {
	Actions   []string
	Effects   []string
	Targets   []string
	Functions []string

	targets   []*regexp.Regexp
	functions []*regexp.Regexp
}

// ApprovalRule holds matching statements for a person. TimeLimit, when not
// zero, is how long a filed request stays usable (it sets expires_at).
type ApprovalRule struct {
	Name      string
	Match     Match
	TimeLimit time.Duration
}

// PolicyRule denies matching statements outright (X-Hoop-Denied: policy).
type PolicyRule struct {
	Name    string
	Match   Match
	Message string
}

// Compile checks and prepares the globs. It returns an error naming the bad
// glob; call it once when the config loads.
func (m *Match) Compile() error {
	m.targets, m.functions = nil, nil
	for _, g := range m.Targets {
		re, err := globRegexp(g, false)
		if err != nil {
			return fmt.Errorf("target %q: %w", g, err)
		}
		m.targets = append(m.targets, re)
	}
	for _, g := range m.Functions {
		re, err := globRegexp(g, true)
		if err != nil {
			return fmt.Errorf("function %q: %w", g, err)
		}
		m.functions = append(m.functions, re)
	}
	return nil
}

// Matches reports whether a is covered. Compile must have been called when
// Targets or Functions are set.
func (m *Match) Matches(a Analysis) bool {
	if len(m.Actions) > 0 && !anyAction(m.Actions, a.Actions) {
		return false
	}
	if len(m.Effects) > 0 && !anyAction(m.Effects, a.Effects) &&
		!(anyAction(m.Effects, []string{EffectUnknown}) && anyAction(a.Actions, []string{ActionUnknown})) {
		return false
	}
	if len(m.Targets) > 0 && !anyGlob(m.targets, a.Targets) {
		return false
	}
	if len(m.Functions) > 0 && !anyGlob(m.functions, a.Functions) {
		return false
	}
	return true
}

func anyAction(want, got []string) bool {
	for _, w := range want {
		for _, g := range got {
			if strings.EqualFold(w, g) {
				return true
			}
		}
	}
	return false
}

func anyGlob(res []*regexp.Regexp, got []string) bool {
	for _, re := range res {
		for _, g := range got {
			if re.MatchString(g) {
				return true
			}
		}
	}
	return false
}

func globRegexp(g string, fold bool) (*regexp.Regexp, error) {
	if g == "" {
		return nil, fmt.Errorf("empty glob")
	}
	var b strings.Builder
	if fold {
		b.WriteString("(?i)")
	}
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case c == '*' && i+1 < len(g) && g[i+1] == '*':
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// Verdict is the outcome of Evaluate.
type Verdict int

// The three outcomes of rule evaluation.
const (
	VerdictAllow Verdict = iota
	VerdictPolicy
	VerdictApproval
)

// Evaluation is Evaluate's answer: the verdict and the rule that decided it.
type Evaluation struct {
	Verdict  Verdict
	Policy   *PolicyRule
	Approval *ApprovalRule
}

// Evaluate applies a listener's rules to one analysed statement: the first
// matching policy rule denies outright; otherwise the first matching approval
// rule holds it for a person; otherwise it is allowed.
func Evaluate(a Analysis, policies []PolicyRule, approvals []ApprovalRule) Evaluation {
	for i := range policies {
		if policies[i].Match.Matches(a) {
			return Evaluation{Verdict: VerdictPolicy, Policy: &policies[i]}
		}
	}
	for i := range approvals {
		if approvals[i].Match.Matches(a) {
			return Evaluation{Verdict: VerdictApproval, Approval: &approvals[i]}
		}
	}
	return Evaluation{Verdict: VerdictAllow}
}

// WantsReturnMode reports whether a client's application name (PostgreSQL
// application_name, MySQL program_name, SQL Server app name, MongoDB appName)
// carries the token hoop-approval=return as a whitespace-separated word.
func WantsReturnMode(applicationName string) bool {
	for _, w := range strings.Fields(applicationName) {
		if strings.EqualFold(w, Names.ReturnModeToken) {
			return true
		}
	}
	return false
}

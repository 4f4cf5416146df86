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
//
// Parts, when set, are the analyses of several statements decided as one
// unit (a multi-statement text, a pipeline): rules apply to each part on its
// own and the strictest verdict wins; the other fields are then one part's,
// for display. app.Deciding sets it when the unit's verdict depends on who
// sent it or on its text (Facts), which it cannot know yet.
type Analysis struct {
	Actions   []string
	Targets   []string
	Functions []string
	Effects   []string
	Parts     []Analysis
}

// Match says which statements a rule covers. Each non-empty list must match
// (AND across lists); inside a list any entry may match (OR). An all-empty
// Match matches every statement.
//
// Actions and Effects compare case-insensitively. Preset names a set of
// effects (presets.go) that joins Effects. Targets and Functions
// are globs: `*`
// matches within one path segment (no '/'), `**` matches anything, `?` one
// character other than '/'; they compare case-sensitively for targets and
// case-insensitively for functions.
//
// Identities and Text match what the analysis does not hold (Facts):
// Identities are globs on the client's identity values, where `*` matches
// any run of characters and `?` one (identities have no path segments),
// compared case-sensitively, as servers compare login names; Text is an RE2
// pattern searched in the statement as the approver reads it (anchor it with
// ^ and $ to match the whole text; (?i) for any case).
type Match struct {
	Actions    []string
	Effects    []string
	Preset     string
	Targets    []string
	Functions  []string
	Identities []string
	Text       string

	targets    []*regexp.Regexp
	functions  []*regexp.Regexp
	identities []*regexp.Regexp
	text       *regexp.Regexp
	effects    []string // Effects and the preset's, once compiled
}

// ApprovalRule holds matching statements for a person. TimeLimit, when not
// zero, is how long a filed request stays usable (it sets expires_at).
// A ReportOnly rule holds nothing: a statement it matches runs as if the
// rule were absent, and the match is reported (Evaluation.Reported).
type ApprovalRule struct {
	Name       string
	Match      Match
	TimeLimit  time.Duration
	ReportOnly bool
}

// PolicyRule denies matching statements outright (X-Hoop-Denied: policy).
// A ReportOnly rule denies nothing and reports its matches instead.
type PolicyRule struct {
	Name       string
	Match      Match
	Message    string
	ReportOnly bool
}

// Compile checks and prepares the globs, the text pattern and the preset.
// It returns an error naming the bad glob, pattern or preset; call it once
// when the config loads. Until it is compiled, a Match asks neither
// Identities nor Text (it matches more, never less) and reads its Preset
// on every call.
func (m *Match) Compile() error {
	m.targets, m.functions, m.identities, m.text, m.effects = nil, nil, nil, nil, nil
	if m.Preset != "" {
		pe, err := PresetEffects(m.Preset)
		if err != nil {
			return fmt.Errorf("preset: %w", err)
		}
		m.effects = AddEffects(append([]string(nil), m.Effects...), pe...)
	}
	for _, g := range m.Identities {
		re, err := identityRegexp(g)
		if err != nil {
			return fmt.Errorf("identity %q: %w", g, err)
		}
		m.identities = append(m.identities, re)
	}
	if m.Text != "" {
		re, err := regexp.Compile(m.Text)
		if err != nil {
			return fmt.Errorf("text %q is not an RE2 pattern: %w", m.Text, err)
		}
		m.text = re
	}
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

// Matches reports whether the analysis a meets the match's conditions on
// it (Identities and Text are not asked: see MatchesWith). Compile must
// have been called when Targets or Functions are set.
func (m *Match) Matches(a Analysis) bool {
	if len(m.Actions) > 0 && !anyAction(m.Actions, a.Actions) {
		return false
	}
	effects := m.effects
	if effects == nil {
		effects = m.Effects
		if m.Preset != "" { // not compiled: still the preset's
			if pe, err := PresetEffects(m.Preset); err == nil {
				effects = append(append([]string(nil), m.Effects...), pe...)
			}
		}
	}
	if len(effects) > 0 && !anyAction(effects, a.Effects) &&
		!(anyAction(effects, []string{EffectUnknown}) && anyAction(a.Actions, []string{ActionUnknown})) {
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

// MatchesWith reports whether a statement with analysis a and facts f is
// covered: Matches, and each of Identities and Text that is set holds (an
// identity glob matches one of f.Identities; the pattern is found in
// f.Text(), which is asked only when every other condition holds).
func (m *Match) MatchesWith(a Analysis, f Facts) bool {
	if !m.Matches(a) {
		return false
	}
	return m.MatchesFacts(f)
}

// MatchesFacts reports whether m's conditions beyond the analysis
// (identities, text) hold for f. A masking rule asks it of a statement the
// analyzer could not read: what it does cannot be told, so it may be what
// the rule names.
func (m *Match) MatchesFacts(f Facts) bool {
	if m.identities != nil && !anyGlob(m.identities, f.Identities) {
		return false
	}
	if m.text != nil {
		text := ""
		if f.Text != nil {
			text = f.Text()
		}
		if !m.text.MatchString(text) {
			return false
		}
	}
	return true
}

// needsFacts reports whether the match has conditions beyond the analysis.
func (m *Match) needsFacts() bool { return m.identities != nil || m.text != nil }

// Facts are what a rule may match beside the analysis of a statement.
type Facts struct {
	// Identities are the client's identity values: the database login user;
	// on http and grpc the values of the listener's identity_keys. Empty
	// when the client has none: a rule with identities then never matches.
	Identities []string
	// Text returns the statement as the approver reads it. It is asked once
	// per rule with a text pattern whose other conditions hold, so a caller
	// whose rendering costs memoizes it. Nil reads as "".
	Text func() string
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

// identityRegexp compiles an identity glob (NameGlob).
func identityRegexp(g string) (*regexp.Regexp, error) { return NameGlob(g) }

// NameGlob compiles a glob over a name that has no path segments (an
// identity, one segment of a masking column path): `*` any run of
// characters, `?` any one character, everything else literal,
// case-sensitive. It returns an error for an empty glob.
func NameGlob(g string) (*regexp.Regexp, error) {
	if g == "" {
		return nil, fmt.Errorf("empty glob")
	}
	var b strings.Builder
	b.WriteString("^(?s:")
	for _, c := range g {
		switch c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(")$")
	return regexp.Compile(b.String())
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

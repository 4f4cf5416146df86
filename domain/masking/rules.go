package masking

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// Mode says what happens to a value a listener cannot read to decide
// whether it must be masked (an unknown type, a body over the size the
// listener inspects, an encoding it cannot decode).
type Mode string

// The modes.
const (
	// Strict (the default) refuses the result with a native error; the
	// rest of it is not sent.
	Strict Mode = "strict"
	// BestEffort sends the value as it is and counts it (Plan.Uninspected).
	BestEffort Mode = "best_effort"
)

// Rule is one masking rule as the config names it (masking_rules).
//
// Entities are Presidio's names (EntityNames), found inside text values.
// Columns are dotted glob paths of result columns, document fields or JSON
// body fields whose whole value is masked (see Plan.Field for how a path
// matches). Match, when set, limits the rule to the results of statements
// it matches (targets, identities, …, as for approval rules). KeepLast is
// Partial's count; Key is Hash's key (required for Hash, at least 16
// bytes).
type Rule struct {
	Name     string
	Entities []string
	Columns  []string
	Match    *domain.Match
	Strategy Strategy
	KeepLast int
	Key      []byte
	Mode     Mode
}

type rule struct {
	name     string
	entities []*entity
	columns  []pathPattern
	match    *domain.Match
	strategy Strategy
	keepLast int
	key      []byte
	strict   bool
}

// Set is the masking rules of one listener, compiled. A nil *Set masks
// nothing.
type Set struct {
	rules []*rule
	facts bool // some rule's match asks for identities or text
}

// Compile checks and prepares rules. It returns nil (masking nothing) for
// no rules, or an error naming the rule and what is wrong: an unknown
// entity or strategy, a bad column glob, a rule with neither entities nor
// columns, Hash without a key of 16 bytes or more, a negative KeepLast.
// A rule's Match must already be compiled (domain.Match.Compile).
func Compile(rules []Rule) (*Set, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	s := &Set{}
	for _, r := range rules {
		c, err := compileRule(r)
		if err != nil {
			return nil, fmt.Errorf("masking rule %q: %w", r.Name, err)
		}
		if r.Match != nil && (len(r.Match.Identities) > 0 || r.Match.Text != "") {
			s.facts = true
		}
		s.rules = append(s.rules, c)
	}
	return s, nil
}

func compileRule(r Rule) (*rule, error) {
	c := &rule{name: r.Name, match: r.Match, strategy: r.Strategy, keepLast: r.KeepLast, key: r.Key,
		strict: r.Mode != BestEffort}
	if len(r.Entities) == 0 && len(r.Columns) == 0 {
		return nil, errors.New("names neither entities nor columns: it would mask nothing")
	}
	for _, name := range r.Entities {
		e := entityByName(name)
		if e == nil {
			return nil, fmt.Errorf("entity %q is not one of %s", name, strings.Join(EntityNames(), ", "))
		}
		c.entities = append(c.entities, e)
	}
	for _, g := range r.Columns {
		p, err := compilePath(g)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", g, err)
		}
		c.columns = append(c.columns, p)
	}
	switch r.Strategy {
	case Redact, Mask:
	case Partial:
		if r.KeepLast < 0 {
			return nil, errors.New("keep_last must be 0 or more")
		}
	case Hash:
		if len(r.Key) < 16 {
			return nil, errors.New("the hash strategy needs a key of 16 bytes or more (key_env or key_file)")
		}
	default:
		return nil, fmt.Errorf("strategy %q is not redact, mask, partial or hash", r.Strategy)
	}
	switch r.Mode {
	case "", Strict, BestEffort:
	default:
		return nil, fmt.Errorf("mode %q is not strict or best_effort", r.Mode)
	}
	return c, nil
}

// NeedsFacts reports whether some rule's match asks for the client's
// identities or the statement's text (For needs them in f).
func (s *Set) NeedsFacts() bool { return s != nil && s.facts }

// For returns the masking of the results of one statement, with analysis
// a and facts f: nil when no rule applies (then nothing need be read). A
// rule without a match applies to every statement; one with a match
// applies when the analysis or one of its Parts matches.
func (s *Set) For(a domain.Analysis, f domain.Facts) *Plan {
	if s == nil {
		return nil
	}
	var p *Plan
	for _, r := range s.rules {
		if r.match != nil && !matchesAny(r.match, a, f) {
			continue
		}
		if p == nil {
			p = &Plan{}
		}
		p.rules = append(p.rules, r)
	}
	if p != nil {
		p.counts = make([]int, len(p.rules))
		p.kinds = kindsOf(p.rules)
	}
	return p
}

func matchesAny(m *domain.Match, a domain.Analysis, f domain.Facts) bool {
	if m.MatchesWith(a, f) {
		return true
	}
	if slices.Contains(a.Actions, domain.ActionUnknown) && m.MatchesFacts(f) {
		// A statement the analyzer could not read (MySQL's HANDLER t READ,
		// a text the parser refuses) may read what the rule names.
		return true
	}
	for _, part := range a.Parts {
		if matchesAny(m, part, f) {
			return true
		}
	}
	return false
}

// pathPattern is a compiled column glob: its dotted segments, each a
// regexp, or nil for `**` (any number of segments).
type pathPattern struct {
	segs []*regexp.Regexp
}

func compilePath(g string) (pathPattern, error) {
	if g == "" {
		return pathPattern{}, errors.New("empty glob")
	}
	var p pathPattern
	for _, seg := range strings.Split(g, ".") {
		if seg == "" {
			return pathPattern{}, errors.New("an empty segment (two dots, or a dot at an end)")
		}
		if seg == "**" {
			p.segs = append(p.segs, nil)
			continue
		}
		re, err := domain.NameGlob(seg)
		if err != nil {
			return pathPattern{}, err
		}
		p.segs = append(p.segs, re)
	}
	return p, nil
}

// matches reports whether the pattern matches a tail of path: its last
// segment matches the path's last, the one before the one before, and so
// on (`**` takes any number, none included). So `ssn` matches a field ssn
// at any depth, `*.ssn` one with a parent (a SQL column's table, empty when
// the protocol does not name it), `customers.ssn` only under customers.
func (p pathPattern) matches(path []string) bool {
	return tailMatch(p.segs, path)
}

func tailMatch(segs []*regexp.Regexp, path []string) bool {
	if len(segs) == 0 {
		return true
	}
	last := segs[len(segs)-1]
	if last == nil { // **
		for k := 0; k <= len(path); k++ {
			if tailMatch(segs[:len(segs)-1], path[:len(path)-k]) {
				return true
			}
		}
		return false
	}
	if len(path) == 0 || !last.MatchString(path[len(path)-1]) {
		return false
	}
	return tailMatch(segs[:len(segs)-1], path[:len(path)-1])
}

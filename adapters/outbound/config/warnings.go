package config

import (
	"fmt"
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// Warnings returns what in f is valid but likely not what its author
// meant, each with the path it concerns; `sidecar validate` prints them and
// still exits 0. Today: a listener whose protocol runs bodies its analyzer
// does not read (Checks.Unread) and one of whose rules holds DELETE or DROP
// (by action or effect) while none of its rules holds RUNS_CODE: those
// statements would run unheld. And a rule with identities on a listener
// that reads identity_keys but names none: it never matches there.
func Warnings(f *File, protocols Protocols) Errors {
	rules := map[string]Match{}
	for _, r := range f.ApprovalRules {
		rules["approval rule "+r.Name] = r.Match
	}
	for _, r := range f.PolicyRules {
		rules["policy rule "+r.Name] = r.Match
	}
	var out Errors
	for i, l := range f.Listeners {
		out = append(out, identitiesUnread(i, l, f, protocols)...)
		unread := protocols[l.Protocol].Unread
		if len(unread) == 0 {
			continue
		}
		var named []string
		var runsCode bool
		for _, kind := range []struct {
			prefix string
			names  []string
		}{{"policy rule ", l.PolicyRules}, {"approval rule ", l.ApprovalRules}} {
			for _, n := range kind.names {
				m, ok := rules[kind.prefix+n]
				if !ok {
					continue
				}
				runsCode = runsCode || holdsEffect(m, domain.EffectRunsCode)
				if holdsDeleteOrDrop(m) {
					named = append(named, kind.prefix+n)
				}
			}
		}
		if len(named) == 0 || runsCode {
			continue
		}
		verb := "holds"
		if len(named) > 1 {
			verb = "hold"
		}
		out = append(out, FieldError{Path: fmt.Sprintf("listeners[%d]", i), Message: fmt.Sprintf(
			"%s %s DELETE or DROP, but no rule of %s listener %s holds RUNS_CODE, so statements whose body the analyzer "+
				"does not read run unheld: %s; add RUNS_CODE to the rule's effects, or use preset: destructive (docs/rules.md)",
			joinAnd(named), verb, l.Protocol, l.Name, strings.Join(unread, ", "))})
	}
	return out
}

// holdsDeleteOrDrop reports whether m names DELETE or DROP, as an action
// (DELETE, DROP, DROP_TABLE…) or as an effect (its own or its preset's).
func holdsDeleteOrDrop(m Match) bool {
	for _, a := range m.Actions {
		if u := strings.ToUpper(a); u == "DELETE" || u == "DROP" || strings.HasPrefix(u, "DROP_") {
			return true
		}
	}
	return holdsEffect(m, domain.EffectDelete) || holdsEffect(m, domain.EffectDrop)
}

// holdsEffect reports whether m lists effect, itself or through its preset.
func holdsEffect(m Match, effect string) bool {
	effects := m.Effects
	if pe, err := domain.PresetEffects(m.Preset); err == nil {
		effects = append(append([]string(nil), effects...), pe...)
	}
	for _, e := range effects {
		if strings.EqualFold(e, effect) {
			return true
		}
	}
	return false
}

// identitiesUnread warns about each rule with identities used by listener
// l (the i-th) when l's protocol takes the identity from identity_keys and
// l names none: no client then has an identity the rule could match.
func identitiesUnread(i int, l Listener, f *File, protocols Protocols) Errors {
	if !protocols[l.Protocol].IdentityKeys || len(l.IdentityKeys) > 0 {
		return nil
	}
	var out Errors
	warn := func(kind, name string) {
		out = append(out, FieldError{Path: fmt.Sprintf("listeners[%d]", i), Message: fmt.Sprintf(
			"%s rule %s matches identities, but %s listener %s names no identity_keys, so no request has an identity and "+
				"the rule never matches here", kind, name, l.Protocol, l.Name)})
	}
	for _, r := range f.PolicyRules {
		if len(r.Match.Identities) > 0 && contains(l.PolicyRules, r.Name) {
			warn("policy", r.Name)
		}
	}
	for _, r := range f.ApprovalRules {
		if len(r.Match.Identities) > 0 && contains(l.ApprovalRules, r.Name) {
			warn("approval", r.Name)
		}
	}
	return out
}

// joinAnd joins names as a sentence does: "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

package analyzerkit

import (
	"slices"
	"strings"
	"sync"
)

// Vocabulary is an analyzer's list of actions, built once on first use:
// upper case, sorted, without duplicates.
type Vocabulary struct {
	list func() []string
	set  func() map[string]struct{}
}

// NewVocabulary returns the vocabulary of the actions build adds (in any
// order, duplicates allowed). build runs once, on the first call of Actions
// or IsAction.
func NewVocabulary(build func(add func(actions ...string))) *Vocabulary {
	list := sync.OnceValue(func() []string {
		set := map[string]struct{}{}
		build(func(actions ...string) {
			for _, a := range actions {
				set[strings.ToUpper(a)] = struct{}{}
			}
		})
		out := make([]string, 0, len(set))
		for a := range set {
			out = append(out, a)
		}
		slices.Sort(out)
		return out
	})
	return &Vocabulary{list: list, set: sync.OnceValue(func() map[string]struct{} {
		set := map[string]struct{}{}
		for _, a := range list() {
			set[a] = struct{}{}
		}
		return set
	})}
}

// Actions returns the sorted actions. The slice is shared: callers must not
// modify it.
func (v *Vocabulary) Actions() []string { return v.list() }

// IsAction reports whether action (any case) is in Actions.
func (v *Vocabulary) IsAction(action string) bool {
	_, ok := v.set()[strings.ToUpper(action)]
	return ok
}

// SortedKeys returns m's keys sorted, nil for an empty m: the action,
// target and function lists of a classified statement.
func SortedKeys(m map[string]struct{}) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// UpperEq reports whether a, in any ASCII case, is b, which is upper case.
// Unlike strings.EqualFold it folds ASCII only, as SQL keywords do (the
// Kelvin sign is not K).
func UpperEq(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != b[i] {
			return false
		}
	}
	return true
}

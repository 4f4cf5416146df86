package config

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hoophq/sidecar/domain/masking"
)

// maskingRules checks the masking_rules block and returns the names it
// defines. Each rule is compiled as the listeners will use it, so a bad
// entity, strategy, column glob or key is reported here, with its path;
// a key_env or key_file is read (it must hold 16 bytes or more).
func (v *validator) maskingRules(rules []MaskingRule) map[string]bool {
	names := map[string]bool{}
	for i, r := range rules {
		p := fmt.Sprintf("masking_rules[%d]", i)
		v.ruleName(p, r.Name, names)
		if r.Match != nil {
			v.match(p+".match", *r.Match)
		}
		for j, e := range r.Entities {
			if !slices.Contains(masking.EntityNames(), e) {
				v.add(fmt.Sprintf("%s.entities[%d]", p, j), fmt.Sprintf("%q is not an entity: the entities are %s",
					e, strings.Join(masking.EntityNames(), ", ")))
			}
		}
		if r.Strategy == "" {
			v.add(p+".strategy", "is required: redact, mask, partial or hash")
			continue
		}
		if r.Strategy != string(masking.Hash) && (r.KeyEnv != "" || r.KeyFile != "") {
			v.add(p, "key_env and key_file are for the hash strategy only")
		}
		if r.Strategy != string(masking.Partial) && r.KeepLast != 0 {
			v.add(p+".keep_last", "is for the partial strategy only")
		}
		key, err := maskingKey(r)
		if err != nil {
			v.add(p, err.Error())
			continue
		}
		rule := maskingRule(r, key)
		rule.Match = nil // checked above, with its own path
		// The unknown entities were reported above, each with its index.
		rule.Entities = slices.DeleteFunc(slices.Clone(r.Entities), func(e string) bool {
			return !slices.Contains(masking.EntityNames(), e)
		})
		if len(rule.Entities) == 0 && len(r.Entities) > 0 && len(r.Columns) == 0 {
			continue // every entity it named is unknown: said above
		}
		if _, err := masking.Compile([]masking.Rule{rule}); err != nil {
			v.add(p, strings.TrimPrefix(err.Error(), fmt.Sprintf("masking rule %q: ", r.Name)))
		}
	}
	return names
}

// maskingKey reads a hash rule's key from key_env or key_file (exactly
// one); nil for another strategy.
func maskingKey(r MaskingRule) ([]byte, error) {
	if r.Strategy != string(masking.Hash) {
		return nil, nil
	}
	switch {
	case (r.KeyEnv == "") == (r.KeyFile == ""):
		return nil, fmt.Errorf("the hash strategy needs exactly one of key_env or key_file (the key is never written in the config)")
	case r.KeyEnv != "":
		k, ok := os.LookupEnv(r.KeyEnv)
		if !ok || len(k) < 16 {
			return nil, fmt.Errorf("key_env: the environment variable %s must hold a key of 16 bytes or more", r.KeyEnv)
		}
		return []byte(k), nil
	default:
		b, err := os.ReadFile(r.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("key_file: %v", err)
		}
		k := strings.TrimRight(string(b), "\r\n")
		if len(k) < 16 {
			return nil, fmt.Errorf("key_file: %s must hold a key of 16 bytes or more", r.KeyFile)
		}
		return []byte(k), nil
	}
}

func maskingRule(r MaskingRule, key []byte) masking.Rule {
	out := masking.Rule{Name: r.Name, Entities: r.Entities, Columns: r.Columns, Strategy: masking.Strategy(r.Strategy),
		KeepLast: r.KeepLast, Key: key, Mode: masking.Mode(r.Mode)}
	if r.Match != nil {
		m := compile(*r.Match)
		out.Match = &m
	}
	return out
}

// maskingSet compiles the masking rules a listener names, in its order,
// from a validated file (nil when it names none).
func maskingSet(f *File, names []string) *masking.Set {
	if len(names) == 0 {
		return nil
	}
	byName := map[string]MaskingRule{}
	for _, r := range f.MaskingRules {
		byName[r.Name] = r
	}
	var rules []masking.Rule
	for _, n := range names {
		r := byName[n]
		key, _ := maskingKey(r) // Validate read it
		rules = append(rules, maskingRule(r, key))
	}
	s, _ := masking.Compile(rules) // Validate compiled each rule
	return s
}

package domain

import (
	"fmt"
	"strings"
)

// A preset is a named set of effects that a rule names instead of listing
// them (`match: {preset: destructive}`), for the guards most teams write
// first. Its effects join the rule's own `effects` (a union), and the
// other lists still AND with them. docs/rules.md, "Presets", says where each
// comes from and what it holds on each protocol.
//
// Every analyzer reports effects in the same words, so a preset means the
// same on every listener and needs no protocol's actions.
var presets = []struct {
	name    string
	effects []string
}{
	// What loses data that is there now, or may: rows, whole tables, and
	// bodies the analyzer cannot read.
	{"destructive", []string{EffectDelete, EffectTruncate, EffectDrop, EffectUnbounded, EffectRunsCode}},
	// A write that reaches every row: an UPDATE or DELETE without a
	// (non-trivial) WHERE, deleteMany({}), TRUNCATE.
	{"unbounded-writes", []string{EffectUnbounded, EffectTruncate}},
	// What changes the shape of the data: CREATE, ALTER, RENAME, DROP.
	{"schema-changes", []string{EffectSchemaChange, EffectDrop}},
	// Who may do what: GRANT, REVOKE, users and roles.
	{"privilege-changes", []string{EffectPrivilege}},
	// What reaches past the database into its host.
	{"file-and-os-access", []string{EffectFileAccess, EffectOSCommand}},
	// What the analyzer cannot tell the meaning of.
	{"unclassifiable", []string{EffectUnknown, EffectRunsCode}},
}

// PresetNames returns the presets' names, in the order docs/rules.md lists
// them.
func PresetNames() []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.name
	}
	return out
}

// PresetEffects returns the effects of the preset named name (exact, lower
// case as listed), or an error naming every preset when there is none.
// The slice is shared: do not change it.
func PresetEffects(name string) ([]string, error) {
	for _, p := range presets {
		if p.name == name {
			return p.effects, nil
		}
	}
	return nil, fmt.Errorf("%q is not a preset: the presets are %s (docs/rules.md)", name, strings.Join(PresetNames(), ", "))
}

package domain

import (
	"strings"
	"testing"
)

func TestPresetsHoldTheirEffects(t *testing.T) {
	for _, c := range []struct {
		preset string
		holds  []string // one analysis per effect, each must match
		lets   []string
	}{
		{"destructive", []string{EffectDelete, EffectTruncate, EffectDrop, EffectUnbounded, EffectRunsCode}, []string{EffectRead, EffectInsert, EffectUpdate}},
		{"unbounded-writes", []string{EffectUnbounded, EffectTruncate}, []string{EffectDelete, EffectUpdate}},
		{"schema-changes", []string{EffectSchemaChange, EffectDrop}, []string{EffectDelete, EffectPrivilege}},
		{"privilege-changes", []string{EffectPrivilege}, []string{EffectSchemaChange}},
		{"file-and-os-access", []string{EffectFileAccess, EffectOSCommand}, []string{EffectRunsCode}},
		{"unclassifiable", []string{EffectUnknown, EffectRunsCode}, []string{EffectDelete}},
	} {
		m := Match{Preset: c.preset}
		if err := m.Compile(); err != nil {
			t.Fatalf("%s: %v", c.preset, err)
		}
		for _, e := range c.holds {
			if !m.Matches(Analysis{Actions: []string{"X"}, Effects: []string{e}}) {
				t.Errorf("preset %s lets %s through", c.preset, e)
			}
		}
		for _, e := range c.lets {
			if m.Matches(Analysis{Actions: []string{"X"}, Effects: []string{e}}) {
				t.Errorf("preset %s holds %s", c.preset, e)
			}
		}
	}
	if got := len(PresetNames()); got != 6 {
		t.Fatalf("%d presets, want the 6 docs/rules.md lists", got)
	}
}

func TestPresetUnknownActionIsUnclassifiable(t *testing.T) {
	m := Match{Preset: "unclassifiable"}
	_ = m.Compile()
	if !m.Matches(Analysis{Actions: []string{ActionUnknown}}) {
		t.Fatal("an UNKNOWN action is not held by the unclassifiable preset")
	}
}

func TestPresetCombines(t *testing.T) {
	// A preset's effects join the rule's own (union); other lists AND.
	m := Match{Preset: "privilege-changes", Effects: []string{EffectDrop}, Targets: []string{"app.*"}}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a    Analysis
		want bool
	}{
		{Analysis{Effects: []string{EffectDrop}, Targets: []string{"app.t"}}, true},
		{Analysis{Effects: []string{EffectPrivilege}, Targets: []string{"app.t"}}, true},
		{Analysis{Effects: []string{EffectPrivilege}, Targets: []string{"other.t"}}, false},
		{Analysis{Effects: []string{EffectDelete}, Targets: []string{"app.t"}}, false},
	} {
		if got := m.Matches(c.a); got != c.want {
			t.Errorf("Matches(%+v) = %v, want %v", c.a, got, c.want)
		}
	}
	if len(m.Effects) != 1 {
		t.Fatalf("Compile changed the rule's own effects: %v", m.Effects)
	}
}

func TestPresetWrongNameListsThem(t *testing.T) {
	m := Match{Preset: "Destructive"}
	err := m.Compile()
	if err == nil || !strings.Contains(err.Error(), "destructive, unbounded-writes, schema-changes") {
		t.Fatalf("Compile = %v, want an error listing the presets", err)
	}
}

func TestPresetMatchesBeforeCompile(t *testing.T) {
	m := Match{Preset: "destructive"} // a caller that forgot Compile still holds the preset's effects
	if !m.Matches(Analysis{Effects: []string{EffectRunsCode}}) || m.Matches(Analysis{Effects: []string{EffectRead}}) {
		t.Fatal("an uncompiled preset does not match its effects")
	}
}

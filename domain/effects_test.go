package domain

import (
	"strings"
	"testing"
)

func TestMatchEffects(t *testing.T) {
	for _, c := range []struct {
		name  string
		match Match
		a     Analysis
		want  bool
	}{
		{"an effect the statement carries", Match{Effects: []string{"delete"}}, Analysis{Actions: []string{"DELETE"}, Effects: []string{EffectDelete, EffectUnbounded}}, true},
		{"an effect it does not carry", Match{Effects: []string{"DROP"}}, Analysis{Actions: []string{"DELETE"}, Effects: []string{EffectDelete}}, false},
		{"an action's name is not an effect", Match{Effects: []string{"DELETE"}}, Analysis{Actions: []string{"DELETE"}}, false},
		{"UNKNOWN action carries the UNKNOWN effect", Match{Effects: []string{"UNKNOWN"}}, Analysis{Actions: []string{ActionUnknown}}, true},
		{"ANDed with actions", Match{Actions: []string{"UPDATE"}, Effects: []string{"UNBOUNDED"}}, Analysis{Actions: []string{"DELETE"}, Effects: []string{EffectDelete, EffectUnbounded}}, false},
		{"ANDed with actions, both hold", Match{Actions: []string{"DELETE"}, Effects: []string{"UNBOUNDED"}}, Analysis{Actions: []string{"DELETE"}, Effects: []string{EffectDelete, EffectUnbounded}}, true},
	} {
		if got := c.match.Matches(c.a); got != c.want {
			t.Errorf("%s: Matches(%+v) = %v, want %v", c.name, c.a, got, c.want)
		}
	}
}

func TestEffectsVocabulary(t *testing.T) {
	if !IsEffect("unbounded") || !IsEffect("RUNS_CODE") || IsEffect("DROP_TABLE") {
		t.Fatal("IsEffect disagrees with the vocabulary")
	}
	got := AddEffects([]string{EffectDelete}, EffectUnbounded, EffectDelete, EffectUnbounded)
	if len(got) != 2 || got[0] != EffectDelete || got[1] != EffectUnbounded {
		t.Fatalf("AddEffects = %v, want [DELETE UNBOUNDED]", got)
	}
}

func TestMergeAddsWhatIsNew(t *testing.T) {
	a := Analysis{Actions: []string{"EXECUTE"}, Targets: []string{"t"}}
	got := Merge(a, Analysis{Actions: []string{"DELETE", "EXECUTE"}, Targets: []string{"t", "u"}, Functions: []string{"f"}, Effects: []string{EffectDelete}})
	if strings.Join(got.Actions, ",") != "EXECUTE,DELETE" || strings.Join(got.Targets, ",") != "t,u" ||
		strings.Join(got.Functions, ",") != "f" || strings.Join(got.Effects, ",") != "DELETE" {
		t.Fatalf("Merge = %+v", got)
	}
	if got.Actions[0] = "X"; a.Actions[0] != "EXECUTE" {
		t.Fatal("Merge shares a slice with its first argument")
	}
}

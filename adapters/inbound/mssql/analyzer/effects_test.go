package analyzer

import (
	"context"
	"slices"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/rulesdoc"
)

// effectsOfText returns the effects of every statement of text, as a rule
// sees them: the union over the batch (sorted).
func effectsOfText(text string) []string {
	var all []string
	for _, st := range Analyze(text, "app").Statements {
		all = domain.AddEffects(all, st.Analysis.Effects...)
	}
	slices.Sort(all)
	return all
}

// TestEffectsTable: every mssql row of docs/rules.md's effects table is
// what the analyzer reports for that statement, the whole list.
func TestEffectsTable(t *testing.T) {
	rulesdoc.Check(t, "mssql", 25, func(s string) ([]string, error) {
		return effectsOfText(s), nil
	})
}

// TestProcEffects: an RPC call of a procedure by name (AnalyzeProc)
// carries the effects an EXEC of it does.
func TestProcEffects(t *testing.T) {
	for name, want := range map[string][]string{
		"sp_rename":                {domain.EffectSchemaChange},
		"[master].[sys].sp_rename": {domain.EffectSchemaChange},
		"app.sp_rename":            {domain.EffectRunsCode},
		"dbo.wipe":                 {domain.EffectRunsCode},
		"sp_addsrvrolemember":      {domain.EffectPrivilege},
		"xp_cmdshell":              {domain.EffectOSCommand, domain.EffectUnknown},
		"sp_executesql":            {domain.EffectRunsCode, domain.EffectUnknown},
		"sp_configure":             {domain.EffectAdmin},
	} {
		if got := AnalyzeProc(name, "app").Statements[0].Analysis.Effects; !slices.Equal(got, want) {
			t.Errorf("AnalyzeProc(%q): effects %v, want %v", name, got, want)
		}
	}
}

// TestEffectsVocabulary: every effect an action or a procedure carries is
// a word of the vocabulary, and every action the analyzer reports that
// changes data carries the effect of its name.
func TestEffectsVocabulary(t *testing.T) {
	for _, a := range Actions() {
		for _, e := range actionEffects(a) {
			if !domain.IsEffect(e) {
				t.Errorf("action %s: effect %q is not in domain.Effects", a, e)
			}
		}
	}
	for p, es := range procEffects {
		for _, e := range es {
			if !domain.IsEffect(e) {
				t.Errorf("procedure %s: effect %q is not in domain.Effects", p, e)
			}
		}
	}
	for _, a := range []string{"INSERT", "UPDATE", "DELETE", "TRUNCATE", "DROP"} {
		if !slices.Contains(actionEffects(a), a) {
			t.Errorf("action %s does not carry the effect %s", a, a)
		}
	}
}

// FuzzEffects: whatever the text, each statement's effects are words of
// the vocabulary, an UNKNOWN action carries UNKNOWN, and an UPDATE, DELETE,
// INSERT or DROP action carries its effect (a rule on effects never holds
// less than one on actions).
func FuzzEffects(f *testing.F) {
	rows, err := rulesdoc.Rows("mssql")
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range rows {
		f.Add(r.Statement)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 2<<10 {
			return
		}
		for _, st := range Analyze(text, "app").Statements {
			a := st.Analysis
			for _, e := range a.Effects {
				if !domain.IsEffect(e) {
					t.Fatalf("%q: effect %q is not in domain.Effects", text, e)
				}
			}
			for _, k := range []string{domain.ActionUnknown, "UPDATE", "DELETE", "INSERT", "DROP"} {
				if slices.Contains(a.Actions, k) && !slices.Contains(a.Effects, k) {
					t.Fatalf("%q: action %s without effect %s (effects %v)", text, k, k, a.Effects)
				}
			}
		}
	})
}

// TestUnboundedThroughTheCache: texts that differ only in constants share
// one analysis in the listener's Cache (shape.go), so UNBOUNDED must not
// depend on a constant's value: WHERE 1 = 0 after WHERE 1 = 1, and the
// other way round, are both UNBOUNDED, while WHERE id = 1 is not.
func TestUnboundedThroughTheCache(t *testing.T) {
	c := NewCache()
	ctx := context.Background()
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"DELETE FROM t WHERE 1 = 0", true},
		{"DELETE FROM t WHERE 1 = 1", true},
		{"DELETE FROM t WHERE id = 1", false},
		{"DELETE FROM t WHERE id = 2", false},
		{"UPDATE t SET a = 1 WHERE 'x' = 'y'", true},
	} {
		r := c.AnalyzeContext(ctx, tc.text, "app")
		if got := slices.Contains(r.Statements[0].Analysis.Effects, domain.EffectUnbounded); got != tc.want {
			t.Errorf("%q through the cache: UNBOUNDED %v, want %v (effects %v)", tc.text, got, tc.want, r.Statements[0].Analysis.Effects)
		}
	}
}

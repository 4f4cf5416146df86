package analyzer

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/rulesdoc"
)

// Every mysql row of docs/rules.md's effects table is what the analyzer
// reports: the union of the effects of the text's statements.
func TestEffectsTable(t *testing.T) {
	rulesdoc.Check(t, "mysql", 25, func(s string) ([]string, error) {
		return textEffects(Analyze(s, "app")), nil
	})
}

// textEffects is the union of a result's statements' effects.
func textEffects(r Result) []string {
	var out []string
	prepared := map[string]bool{}
	for _, st := range r.Statements {
		out = domain.AddEffects(out, st.Analysis.Effects...)
		if st.Prepare != nil {
			prepared[strings.ToLower(st.Prepare.Name)] = true
		}
		if st.Execute != "" && !prepared[strings.ToLower(st.Execute)] {
			// As the listener (and explain) read an EXECUTE of a name
			// never seen prepared: unknown code runs.
			out = domain.AddEffects(out, domain.EffectRunsCode, domain.EffectUnknown)
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// Every action the analyzer can report has its entry in actionEffects, and
// every effect there is a word of the vocabulary: an action without one
// would read as UNKNOWN.
func TestEveryActionHasEffects(t *testing.T) {
	for _, a := range Actions() {
		if _, ok := actionEffects[a]; !ok {
			t.Errorf("action %s has no entry in actionEffects (effects.go)", a)
		}
	}
	for a, es := range actionEffects {
		if !IsAction(a) {
			t.Errorf("actionEffects names %s, which is not an action", a)
		}
		for _, e := range es {
			if !domain.IsEffect(e) {
				t.Errorf("actionEffects[%s] holds %s, not an effect", a, e)
			}
		}
	}
}

// Texts of one shape (their constants differ) share a cached analysis:
// UNBOUNDED never depends on a constant's value, so the cache answers each
// text as Analyze does.
func TestEffectsThroughShapeCache(t *testing.T) {
	c := NewCache()
	for _, sql := range []string{
		"DELETE FROM t WHERE 0", "DELETE FROM t WHERE 1", "DELETE FROM t WHERE 'abc'", "DELETE FROM t WHERE '1abc'",
		"DELETE FROM t WHERE id = 1", "DELETE FROM t WHERE id = 2 OR 0", "DELETE FROM t WHERE id = 2 OR 1",
		"UPDATE t SET a = 1 WHERE id = 1 AND 1 = 0", "UPDATE t SET a = 2 WHERE id = 1 AND 1 = 1",
		// A WHERE MariaDB skips (skipped.go) and a name a gap makes a stored
		// function's (builtins.go) are not constants: no shared shape.
		"DELETE FROM t /*!99999 WHERE id = 1 */", "DELETE FROM t /*!40000 WHERE id = 1 */", "DELETE FROM t WHERE id = 3",
		"SELECT mid('abc', 1)", "SELECT mid ('abc', 2)", "SELECT mid/**/('abc', 2)", "SELECT mid('abc', 3)",
	} {
		want := textEffects(Analyze(sql, "app"))
		got := textEffects(c.Analyze(sql, "app"))
		if !slices.Equal(got, want) {
			t.Errorf("%s: the cache reports %v, Analyze %v", sql, got, want)
		}
	}
}

// The listener reads EXECUTE of a PREPARE in the same text as the prepared
// text; the analyzer gives PREPARE that text's effects.
func TestPrepareCarriesEffects(t *testing.T) {
	r := Analyze("PREPARE s FROM 'UPDATE t SET a = 1'", "app")
	p := r.Statements[0].Prepare
	if p == nil || !sameSet(p.Analysis.Effects, []string{domain.EffectUpdate, domain.EffectUnbounded}) {
		t.Fatalf("PREPARE of an UPDATE without WHERE: prepared %+v", p)
	}
	r = Analyze("PREPARE s FROM @q", "app")
	if p := r.Statements[0].Prepare; p == nil || !sameSet(p.Analysis.Effects, []string{domain.EffectRunsCode, domain.EffectUnknown}) {
		t.Fatalf("PREPARE FROM a variable: prepared %+v", p)
	}
}

// A built-in's name the server reads as a stored function's (a gap before
// "(", or quoted, builtins.go) is RUNS_CODE; a native function's is not,
// and IGNORE_SPACE makes the gap the built-in's again.
func TestShadowedBuiltins(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT `now`()": true, "SELECT `mid`(1)": true, "SELECT mid\t(1)": true, "SELECT mid/* c */(1)": true,
		"SELECT `abs`(1)": false, "SELECT abs (1)": false, "SELECT mid(1, 1)": false, "SELECT now()": false,
		"INSERT INTO count (a) VALUES (1)": false, "SELECT count (1) /*!99999 */": true,
	} {
		got := slices.Contains(textEffects(Analyze(sql, "app")), domain.EffectRunsCode)
		if got != want {
			t.Errorf("%s: RUNS_CODE %v, want %v", sql, got, want)
		}
	}
	r := AnalyzeMode("SELECT count (1)", "app", Mode{}.WithSQLMode("IGNORE_SPACE"))
	if slices.Contains(textEffects(r), domain.EffectRunsCode) {
		t.Errorf("under IGNORE_SPACE count (1) is the aggregate: %v", textEffects(r))
	}
}

// A reading of a server that skips a versioned comment which the parser
// refuses, or too many readings, make the text uncheckable; dump-style
// comments around whole statements read as before.
func TestSkippedReadings(t *testing.T) {
	for _, sql := range []string{
		"DELETE /*!99999 FROM */ t",
		"SELECT 1" + func() string {
			var b strings.Builder
			for v := 40001; v < 40030; v++ {
				fmt.Fprintf(&b, " /*!%d ,1 */", v)
			}
			return b.String()
		}(),
	} {
		if r := Analyze(sql, "app"); !isUncheckable(r.Err) {
			t.Errorf("%s: err %v, want uncheckable", sql, r.Err)
		}
	}
	r := Analyze("/*!40101 SET NAMES utf8mb4 */;\n/*!50717 SET @a = 1 */;\nDELETE FROM t WHERE id = 1", "app")
	if r.Err != nil || len(r.Statements) != 3 || slices.Contains(textEffects(r), domain.EffectUnbounded) {
		t.Errorf("dump-style text: err %v, %d statements, effects %v", r.Err, len(r.Statements), textEffects(r))
	}
}

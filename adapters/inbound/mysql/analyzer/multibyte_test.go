package analyzer

import (
	"slices"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// A text whose split depends on a multi-byte client character set is
// UNKNOWN in a MultiByte session (also from the cache, whose shapes hide
// literals), and read as usual otherwise.
func TestMultiByteAmbiguousTexts(t *testing.T) {
	c := NewCache()
	for _, q := range []string{
		"SELECT 1 AS `a\x95`, 2 AS `; DELETE FROM t; -- `",
		"SELECT * FROM t WHERE a = 'x\x95\\'; DELETE FROM t; -- '",
	} {
		if r := Analyze(q, "db"); r.Err != nil && isUncheckable(r.Err) && !slices.Contains(r.Statements[0].Analysis.Actions, domain.ActionUnknown) {
			t.Errorf("%q without MultiByte: %v", q, r.Err)
		}
		for _, r := range []Result{AnalyzeMode(q, "db", Mode{MultiByte: true}), c.AnalyzeMode(q, "db", Mode{MultiByte: true})} {
			if r.Err == nil || !slices.Contains(r.Statements[0].Analysis.Actions, domain.ActionUnknown) {
				t.Errorf("%q in a multi-byte session: %+v, want UNKNOWN", q, r)
			}
		}
	}
	if r := AnalyzeMode("SELECT 1 AS `名`", "db", Mode{}); r.Err != nil {
		t.Errorf("utf8 name: %v", r.Err)
	}
}

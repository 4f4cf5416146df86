package analyzer

import (
	"os"
	"slices"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// Every action the analyzer reports for a statement of each kind is in
// Actions(), the vocabulary `sidecar validate` checks rules against: an
// action missing from it would make validate refuse a rule that works.
func TestVocabularyCoversWhatTheAnalyzerReports(t *testing.T) {
	sql, err := os.ReadFile("testdata/vocabulary.sql")
	if err != nil {
		t.Fatal(err)
	}
	r := Analyze(string(sql))
	if r.Err != nil {
		t.Fatalf("the corpus must parse: %v", r.Err)
	}
	if len(r.Statements) < 150 {
		t.Fatalf("want the whole corpus analysed, got %d statements", len(r.Statements))
	}
	seen := map[string]bool{}
	for _, st := range r.Statements {
		for _, a := range st.Analysis.Actions {
			seen[a] = true
			if !IsAction(a) {
				t.Errorf("%q reports %s, which Actions() lacks", st.Text, a)
			}
		}
	}
	if !IsAction(domain.ActionUnknown) || !IsAction("drop_table") || !slices.IsSorted(Actions()) {
		t.Error("UNKNOWN and DROP_TABLE (any case) are actions; the list is sorted")
	}
	// The corpus reaches most of the vocabulary; the rest is object words
	// from the parser's enums (DROP_COLUMN…) that no statement combines.
	if len(seen) < len(Actions())/2 {
		t.Errorf("the corpus reaches %d of %d actions", len(seen), len(Actions()))
	}
}

// Typos and other protocols' words are not actions.
func TestVocabularyRefusesWhatTheAnalyzerNeverReports(t *testing.T) {
	for _, a := range []string{"DORP", "DELETES", "DROP TABLE", "GET", "CALL_PROCEDURE", "*", "DROP_*", "", "DROP_TYPE_UNDEFINED"} {
		if IsAction(a) {
			t.Errorf("%q is not an action the analyzer reports", a)
		}
	}
}

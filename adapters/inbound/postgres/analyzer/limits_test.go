package analyzer

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// Texts nested deeper than the parser library can turn into a tree are
// uncheckable, and do not crash the process (30,000 chained operators
// overflowed the C stack: SIGSEGV).
func TestDeepChainsAreUncheckable(t *testing.T) {
	for _, sql := range []string{
		"SELECT 1" + strings.Repeat(" + 1", 30000),
		"SELECT 1" + strings.Repeat("::int", 30000),
		"SELECT 1" + strings.Repeat(" UNION SELECT 1", 40000),
		"SELECT 1 FROM a" + strings.Repeat(" JOIN a ON true", 30000),
		"SELECT 1" + strings.Repeat(" + f(1, 2)", 30000),
	} {
		r := Analyze(sql)
		if !errors.Is(r.Err, ErrUncheckable) {
			t.Errorf("%.40s…: err %v, want ErrUncheckable", sql, r.Err)
		}
	}
}

// A statement PostgreSQL runs is analysed even when deep: 6,000 chained
// operators ran at max_stack_depth 6MB, but the analyzer read UNKNOWN, so
// a rule on DELETE let the DELETE through.
func TestDeepButRunnableIsAnalysed(t *testing.T) {
	for _, sql := range []string{
		"DELETE FROM t WHERE id = 0" + strings.Repeat(" + 0", 6000),
		"DELETE FROM t WHERE " + strings.Repeat("NOT ", 6000) + "false",
	} {
		r := Analyze(sql)
		if r.Err != nil || !slices.Contains(r.Statements[0].Analysis.Actions, "DELETE") {
			t.Errorf("%.40s…: %v %v", sql, r.Statements[0].Analysis.Actions, r.Err)
		}
	}
}

// Large but shallow texts are analysed: long OR chains, CASE arms, VALUES
// lists, IN lists.
func TestLargeShallowTextsAreAnalysed(t *testing.T) {
	var cases strings.Builder
	for i := range 6000 {
		cases.WriteString(sprintf(" WHEN %d THEN 'x' || 'y'", i))
	}
	for _, sql := range []string{
		"DELETE FROM t WHERE id = 1" + strings.Repeat(" OR id = 1 + 1", 6000),
		"UPDATE t SET a = CASE id" + cases.String() + " END",
		"INSERT INTO t VALUES " + strings.Repeat("(-1, 'a', 2.5 * 2),", 10000) + "(1, 'a', 1)",
		"SELECT * FROM t WHERE id IN (" + strings.Repeat("-1 + 1, ", 10000) + "1)",
	} {
		r := Analyze(sql)
		if r.Err != nil || len(r.Statements[0].Analysis.Actions) == 0 || r.Statements[0].Analysis.Actions[0] == domain.ActionUnknown {
			t.Errorf("%.40s…: %v %v", sql, r.Statements[0].Analysis.Actions, r.Err)
		}
	}
}

// Texts over MaxSize are uncheckable (parsing costs ~100 times the text).
func TestHugeTextIsUncheckable(t *testing.T) {
	sql := "SELECT '" + strings.Repeat("x", MaxSize) + "'"
	if r := Analyze(sql); !errors.Is(r.Err, ErrUncheckable) {
		t.Fatalf("err %v", r.Err)
	}
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

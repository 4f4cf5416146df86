package postgres

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestCheckAction(t *testing.T) {
	p := New(nil)
	for _, a := range []string{"DELETE", "drop", "DROP_TABLE", "FUNCTION_CALL", "function_call", "UNKNOWN", "COPY_PROGRAM"} {
		if err := p.CheckAction(a); err != nil {
			t.Errorf("%s: %v", a, err)
		}
	}
	for _, a := range []string{"DORP", "GET", "CALL_PROCEDURE", "*", "DROP_*", ""} {
		if err := p.CheckAction(a); err == nil || !strings.Contains(err.Error(), "is not an action of postgres listeners") {
			t.Errorf("%q: want a refusal, got %v", a, err)
		}
	}
}

// Every action docs/postgres-listener.md names in its table of actions is
// one a rule may use: the docs and `sidecar validate` read one list.
func TestTheDocumentedActionsAreTheVocabulary(t *testing.T) {
	b, err := os.ReadFile("../../../docs/postgres-listener.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "| action | statements |")
	if start < 0 {
		t.Fatal("docs/postgres-listener.md has no table of actions")
	}
	table := doc[start:]
	if end := strings.Index(table, "\n\n"); end > 0 {
		table = table[:end]
	}
	p := New(nil)
	n := 0
	for _, m := range regexp.MustCompile("`([A-Z][A-Z_]*)`").FindAllStringSubmatch(table, -1) {
		n++
		if err := p.CheckAction(m[1]); err != nil {
			t.Errorf("the docs name %s: %v", m[1], err)
		}
	}
	if n < 80 {
		t.Fatalf("want the whole table read, found %d actions", n)
	}
}

package masking

import (
	"os"
	"strings"
	"testing"
)

// TestEntitiesTable checks every row of docs/masking.md's entities table
// against the code: the entity exists, its "found" example is masked whole
// as that entity, and its "left as it is" example comes back unchanged
// with every entity on. The table is the contract users read.
func TestEntitiesTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/masking.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "<!-- entities-table:")
	if !ok {
		t.Fatal("docs/masking.md has no entities-table marker")
	}
	p := pii(t, Redact)
	seen := map[string]bool{}
	_, table, _ = strings.Cut(table, "|---")
	for _, line := range strings.Split(table, "\n")[1:] {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 5 {
			t.Fatalf("row with %d cells: %s", len(cells), line)
		}
		name := strings.TrimSpace(cells[0])
		seen[name] = true
		if entityByName(name) == nil {
			t.Errorf("%s is not an entity", name)
		}
		example := func(cell string) string {
			return strings.ReplaceAll(strings.Trim(strings.TrimSpace(cell), "`"), `\n`, "\n")
		}
		found, left := example(cells[3]), example(cells[4])
		if got, _ := p.Field().Text(nil, []byte(found)); string(got) != "<"+name+">" {
			t.Errorf("%s: %q became %q, want <%s>", name, found, got, name)
		}
		if got, changed := p.Field().Text(nil, []byte(left)); changed {
			t.Errorf("%s: %q should be left as it is, became %q", name, left, got)
		}
	}
	for _, name := range EntityNames() {
		if !seen[name] {
			t.Errorf("the table has no row for %s", name)
		}
	}
}

package command

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocsListEveryAction: docs/mongodb-listener.md, "Actions", names every
// action of the vocabulary, and names nothing else in upper case, so the
// operators' list and `sidecar validate` agree.
func TestDocsListEveryAction(t *testing.T) {
	b, err := os.ReadFile("../../../../docs/mongodb-listener.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n### Actions\n")
	if !ok {
		t.Fatal(`docs/mongodb-listener.md has no "### Actions" section`)
	}
	section, _, _ = strings.Cut(section, "\n### ")
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([A-Z][A-Z_]+)`").FindAllStringSubmatch(section, -1) {
		named[m[1]] = true
		if !IsAction(m[1]) {
			t.Errorf("the docs name %s, which is not an action", m[1])
		}
	}
	for _, a := range Actions() {
		if !named[a] {
			t.Errorf("action %s is missing from docs/mongodb-listener.md, \"Actions\"", a)
		}
	}
}

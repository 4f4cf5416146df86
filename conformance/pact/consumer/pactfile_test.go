//go:build pact

package consumer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/pact/contract"
)

// checkPactFile compares the pact the tests wrote (at written) with the
// committed pacts/ file of that name, ignoring the metadata that names
// library versions and the order of interactions. With UPDATE_PACT=1 it
// copies written over the committed file instead.
func checkPactFile(t *testing.T, written, name string) {
	t.Helper()
	committed, err := contract.Committed(name)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(written)
	if err != nil {
		t.Fatalf("the consumer tests wrote no pact at %s: %v", written, err)
	}
	if os.Getenv("UPDATE_PACT") == "1" {
		if err := os.WriteFile(committed, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("UPDATE_PACT=1: wrote %s; commit it", committed)
		return
	}
	refresh := "run `UPDATE_PACT=1 scripts/test-pact.sh` to refresh it, review the diff, and commit it " +
		"(docs/contract-testing.md, \"Changing the contract\")"
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatalf("committed pact %s cannot be read (%v); %s", committed, err, refresh)
	}
	g, err := normalize(got)
	if err != nil {
		t.Fatalf("written pact: %v", err)
	}
	w, err := normalize(want)
	if err != nil {
		t.Fatalf("committed pact %s: %v; %s", committed, err, refresh)
	}
	if !bytes.Equal(g, w) {
		t.Fatalf("the committed pact %s differs from the one the consumer tests write:\n%s\n%s",
			committed, firstDiff(string(w), string(g)), refresh)
	}
}

// normalize returns the pact as indented JSON with sorted keys, the
// interactions sorted by description, and metadata reduced to the Pact
// specification version (library versions there vary without changing the
// contract).
func normalize(raw []byte) ([]byte, error) {
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	if md, ok := p["metadata"].(map[string]any); ok {
		p["metadata"] = map[string]any{"pactSpecification": md["pactSpecification"]}
	}
	if list, ok := p["interactions"].([]any); ok {
		sort.SliceStable(list, func(i, j int) bool { return describe(list[i]) < describe(list[j]) })
	}
	return json.MarshalIndent(p, "", "  ")
}

func describe(v any) string {
	if m, ok := v.(map[string]any); ok {
		if d, ok := m["description"].(string); ok {
			return d
		}
	}
	return ""
}

// firstDiff shows where committed and written first differ, with context.
func firstDiff(committed, written string) string {
	a, b := strings.Split(committed, "\n"), strings.Split(written, "\n")
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	var out strings.Builder
	from := max(0, i-3)
	fmt.Fprintf(&out, "first difference at line %d of the normalized pact:\n", i+1)
	for j := from; j < i+4; j++ {
		if j < len(a) && (j >= i || j < len(b)) {
			if j >= i {
				fmt.Fprintf(&out, "  committed: %s\n", a[j])
			} else {
				fmt.Fprintf(&out, "             %s\n", a[j])
			}
		}
	}
	for j := i; j < i+4 && j < len(b); j++ {
		fmt.Fprintf(&out, "  written:   %s\n", b[j])
	}
	return out.String()
}

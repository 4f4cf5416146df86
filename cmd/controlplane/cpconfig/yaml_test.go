package cpconfig

import (
	"strings"
	"testing"
)

// The Control Plane reads YAML as the Sidecar does (internal/yamldoc): a key
// written beside a merge key wins over the merged one, before or after it,
// so one anchor can give several principals their shared keys.
func TestParseMergeKeyKeysWrittenBesideItWin(t *testing.T) {
	t.Setenv("CP_TEST_MERGE", "env-token-9")
	c, err := Parse([]byte(`sidecars:
  - &base {name: demo, token: t0}
  - {<<: *base, name: other, token: t1}
approvers:
  - {token_env: CP_TEST_MERGE, <<: {name: alice}}
  - {name: bob, <<: {name: nobody, token: t2}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Sidecars["t0"] != "demo" || c.Sidecars["t1"] != "other" {
		t.Errorf("sidecars = %v, want t0 demo and t1 other (the key beside << wins)", c.Sidecars)
	}
	if c.Approvers["env-token-9"] != "alice" || c.Approvers["t2"] != "bob" {
		t.Errorf("approvers = %v, want alice (merged name) and bob (the key beside << wins)", c.Approvers)
	}
}

// The first unknown key is the error, with its path, line and column and the
// keys that exist where it stands, so the operator sees the typo's place.
func TestParseUnknownKeyNamesPathLineColumnAndKeys(t *testing.T) {
	_, err := Parse([]byte("approvers: [{name: x, token: t2}]\nsidecars:\n  - name: a\n    tokn: 1\n"))
	want := `sidecars[0].tokn: unknown field "tokn" (line 4, column 5); the keys here are name, token, token_env, token_file`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// A key written twice in one mapping, a second document and a text that is
// not YAML are errors that name their line.
func TestParseRefusesRepeatedKeysAndSecondDocuments(t *testing.T) {
	for name, tc := range map[string]struct{ yaml, want string }{
		"repeated key":    {"sidecars: [{name: a, token: t0}]\nsidecars: [{name: b, token: t1}]\napprovers: [{name: x, token: t2}]", `line 2: mapping key "sidecars" already defined at line 1`},
		"second document": {"sidecars: [{name: a, token: t0}]\napprovers: [{name: x, token: t2}]\n---\nlisten: 0.0.0.0:1\n", "line 4: a second YAML document"},
		"not YAML":        {"sidecars: [unclosed\n", "line 1: "},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(tc.yaml)); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to start with %q", err, tc.want)
			}
		})
	}
}

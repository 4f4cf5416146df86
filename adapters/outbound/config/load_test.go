package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/adapters/outbound/config"
)

// Every unknown key is reported, each with its path and line, wherever it is
// (top level, a block, a flow mapping, a list entry, a rule's match), and
// the known keys still decode.
func TestParseReportsEveryUnknownKeyWithItsPathAndLine(t *testing.T) {
	f, keys, err := config.Parse([]byte(`sidecar: demo
sidcar: typo
control_plane: {url: http://cp:8080, token_env: T, tokn_file: x}
approval_rules:
  - name: holds
    match: {actions: [DELETE], target: ["public.*"]}
listeners:
  - name: a
    protocol: postgres
    listen: 127.0.0.1:1
    upstrem: 127.0.0.1:5432
    upstream_tls: {enabled: true, ca: /x}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"sidcar: unknown key (line 2)",
		"control_plane.tokn_file: unknown key (line 3)",
		"approval_rules[0].match.target: unknown key (line 6)",
		"listeners[0].upstrem: unknown key (line 11)",
		"listeners[0].upstream_tls.ca: unknown key (line 12)",
	}
	if len(keys) != len(want) {
		t.Fatalf("want %d unknown keys, got %d:\n%v", len(want), len(keys), keys)
	}
	for i, w := range want {
		if !strings.HasPrefix(keys[i].Error(), w) {
			t.Errorf("mistake %d = %q, want it to start with %q", i, keys[i].Error(), w)
		}
	}
	if !strings.Contains(keys[3].Error(), "the keys here are ") || !strings.Contains(keys[3].Error(), "upstream,") {
		t.Errorf("the message should list the keys that exist there: %q", keys[3].Error())
	}
	if f.Sidecar != "demo" || f.Listeners[0].Listen != "127.0.0.1:1" || f.ControlPlane.TokenEnv != "T" ||
		f.Listeners[0].UpstreamTLS == nil || !f.Listeners[0].UpstreamTLS.Enabled {
		t.Errorf("the known keys did not decode: %+v", f)
	}
}

// Anchors, aliases and merge keys are YAML; a key merged in from an anchor
// is checked where the anchor is written, once.
func TestParseFollowsAnchorsAndMergeKeys(t *testing.T) {
	f, keys, err := config.Parse([]byte(`sidecar: demo
listeners:
  - {name: a, protocol: http, listen: 127.0.0.1:1, upstream: https://u, upstream_tls: &tls {enabled: true, ca_file: /ca}}
  - name: b
    protocol: http
    listen: 127.0.0.1:2
    upstream: https://u
    upstream_tls:
      <<: *tls
      server_nme: u
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || !strings.HasPrefix(keys[0].Error(), "listeners[1].upstream_tls.server_nme: unknown key (line 10)") {
		t.Fatalf("want only listeners[1].upstream_tls.server_nme, got %v", keys)
	}
	if tls := f.Listeners[1].UpstreamTLS; tls == nil || !tls.Enabled || tls.CAFile != "/ca" {
		t.Fatalf("merge key not applied: %+v", tls)
	}
}

func TestParseRefusesWhatIsNotTheFormat(t *testing.T) {
	for name, text := range map[string]string{
		"not YAML":         "sidecar: [unclosed\n",
		"wrong value type": "sidecar: demo\nlisteners: {name: a}\n",
		"list for a block": "sidecar: demo\nadmin: [a, b]\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := config.Parse([]byte(text)); err == nil || !strings.HasPrefix(err.Error(), "parse config: ") {
				t.Fatalf("want a parse error, got %v", err)
			}
		})
	}
}

func TestParseEmptyFileIsAnEmptyConfig(t *testing.T) {
	f, keys, err := config.Parse(nil)
	if err != nil || len(keys) != 0 || f == nil {
		t.Fatalf("got %+v %v %v", f, keys, err)
	}
	if errs := config.Validate(f, nil); len(errs) != 1 || errs[0].Path != "sidecar" {
		t.Fatalf("an empty file lacks only the sidecar name, got %v", errs)
	}
}

func TestLoadReadsTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte("sidecar: demo\nadmn: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, keys, err := config.Load(p)
	if err != nil || f.Sidecar != "demo" || len(keys) != 1 || keys[0].Path != "admn" {
		t.Fatalf("got %+v %v %v", f, keys, err)
	}
	if _, _, err := config.Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.HasPrefix(err.Error(), "read config: ") {
		t.Fatalf("a missing file: %v", err)
	}
}

// The example config the repository ships has no unknown key and no mistake.
func TestTheExampleConfigIsValid(t *testing.T) {
	f, keys, err := config.Load("../../../examples/config.yaml")
	if err != nil || len(keys) != 0 {
		t.Fatalf("%v %v", keys, err)
	}
	if errs := config.Validate(f, config.Protocols{"http": {}, "postgres": {}}); errs != nil {
		t.Fatal(errs)
	}
}

// A text that once made the YAML library panic (goccy/go-yaml, found by
// FuzzParse; the input is also in testdata/fuzz/FuzzParse) is a parse error,
// and Load says so instead of crashing `sidecar validate` and `sidecar run`.
func TestParseRefusesTextTheYAMLParserPanicsOn(t *testing.T) {
	text := "approval_rules:\n !0 0000\n000000000008:0000000000:\n000"
	f, _, err := config.Parse([]byte(text))
	if err == nil || f != nil || !strings.HasPrefix(err.Error(), "parse config: line 4: ") {
		t.Fatalf("Parse: file %v, error %v; want a parse error naming line 4", f, err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := config.Load(path); err == nil || !strings.HasPrefix(err.Error(), "parse config: ") {
		t.Fatalf("Load: %v; want the parse error", err)
	}
}

// A config is one YAML document: the keys of a second one, after "---",
// would otherwise be ignored (a listener there would silently not exist).
func TestParseRefusesASecondDocument(t *testing.T) {
	_, _, err := config.Parse([]byte("sidecar: a\n---\nlisteners: []\n"))
	if err == nil || err.Error() != "parse config: line 3: a second YAML document; the file must hold one" {
		t.Fatalf("want the second document refused at line 3, got %v", err)
	}
}

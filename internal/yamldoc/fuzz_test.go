package yamldoc

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type fuzzInner struct {
	Name  string            `yaml:"name"`
	On    bool              `yaml:"on"`
	Tags  []string          `yaml:"tags"`
	Extra map[string]string `yaml:"extra"`
}

type fuzzFile struct {
	Top   string               `yaml:"top"`
	Block *fuzzInner           `yaml:"block"`
	List  []fuzzInner          `yaml:"list"`
	ByKey map[string]fuzzInner `yaml:"by_key"`
}

// FuzzDecode decodes any bytes into a struct of blocks, lists and maps. It
// never panics; each unknown key has a position and a path ending in the key;
// and whenever it reports an unknown key, yaml.v3's own strict decoder
// (KnownFields) refuses the text too, so no key the decoder knows is called
// unknown.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"",
		"top: a\nblock: {name: n, on: true, tags: [a]}\n",
		"x: &d {name: a, nme: b}\nlist: [{<<: *d, on: true}, {<<: [*d, {tags: []}], name: c}]\n",
		"by_key: {a: {name: x, extra: {k: v}}, b: *missing}\n",
		"top: a\ntop: b\n",
		"a: &a [*a]\n",
		"top: a\n---\ntop: b\n",
		"approval_rules:\n !0 0000\n000000000008:0000000000:\n000",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v fuzzFile
		keys, err := Decode(b, &v)
		if err != nil {
			return
		}
		for _, k := range keys {
			if k.Line < 1 || k.Column < 1 || k.Path == "" || !strings.HasSuffix(k.Path, k.Key) || len(k.Known) == 0 {
				t.Fatalf("unknown key %+v lacks its place:\n%q", k, b)
			}
		}
		// An empty or null key is unknown here; yaml.v3 drops it unsaid.
		null := slices.ContainsFunc(keys, func(k UnknownKey) bool { return slices.Contains([]string{"", "~", "null", "Null", "NULL"}, k.Key) })
		if len(keys) > 0 && !null {
			dec := yaml.NewDecoder(bytes.NewReader(b))
			dec.KnownFields(true)
			var strict fuzzFile
			if err := dec.Decode(&strict); err == nil {
				t.Fatalf("reported %+v, yet yaml.v3 KnownFields accepts:\n%q", keys, b)
			}
		}
	})
}

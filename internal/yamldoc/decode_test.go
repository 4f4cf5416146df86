package yamldoc

import (
	"strings"
	"testing"
)

type file struct {
	Name  string `yaml:"name"`
	Items []struct {
		Name string `yaml:"name"`
	} `yaml:"items"`
}

// A key that is a list or a mapping is an error with its line and column,
// also beside a merge key, where yaml.v3 v3.0.1 itself would panic (the input
// FuzzDecode found, testdata/fuzz/FuzzDecode/2530d7c9ecc20f7d).
func TestDecodeRefusesAKeyThatIsAListOrAMapping(t *testing.T) {
	for _, text := range []string{
		"items: [{<<: {name: a}, [x]: b}]\n",
		"name: a\n? {k: v}\n: b\n",
		"0: &d !00000 0000000\nlist: [{<<,000,[]}]",
	} {
		var f file
		_, err := Decode([]byte(text), &f)
		if err == nil || !strings.Contains(err.Error(), "a key must be text, not a list or a mapping") || !strings.HasPrefix(err.Error(), "line ") {
			t.Errorf("%q: error %v, want the key refused with its place", text, err)
		}
	}
}

// An empty key drops its value in yaml.v3: it is reported as unknown, with
// its place, so a key name left out is not silently ignored.
func TestDecodeReportsAnEmptyKey(t *testing.T) {
	var f file
	keys, err := Decode([]byte("name: a\nitems:\n  - \"\": b\n"), &f)
	if err != nil || len(keys) != 1 || keys[0].Path != `items[0].""` || keys[0].Line != 3 || keys[0].Column != 5 {
		t.Fatalf("got %+v %v, want one unknown key at items[0].\"\" (line 3, column 5)", keys, err)
	}
}

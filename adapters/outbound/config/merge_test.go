package config_test

import (
	"strings"
	"testing"

	"github.com/hoophq/sidecar/adapters/outbound/config"
)

// A merge key's mapping gives defaults: a key written beside "<<" wins,
// before or after it (YAML merge key type). The common shape, one listener
// as an anchor and the next overriding its name, must parse.
func TestParseMergeKeyKeysWrittenBesideItWin(t *testing.T) {
	f, keys, err := config.Parse([]byte(`sidecar: demo
listeners:
  - &api
    name: a
    protocol: http
    listen: 127.0.0.1:1
    upstream: http://u
  - <<: *api
    name: b
    listen: 127.0.0.1:2
  - name: c
    listen: 127.0.0.1:3
    <<: *api
`))
	if err != nil || len(keys) != 0 {
		t.Fatalf("got %v %v", keys, err)
	}
	for i, want := range []string{"a", "b", "c"} {
		l := f.Listeners[i]
		if l.Name != want || l.Protocol != "http" || l.Upstream != "http://u" {
			t.Errorf("listeners[%d] = %+v, want name %s merged with the anchor", i, l, want)
		}
	}
}

// A key written twice in one mapping is still a mistake (which one would
// win is not obvious to whoever reads the file).
func TestParseRefusesARepeatedKey(t *testing.T) {
	_, _, err := config.Parse([]byte("sidecar: a\nsidecar: b\n"))
	if err == nil || !strings.Contains(err.Error(), `"sidecar" already defined`) {
		t.Fatalf("want a parse error naming the repeated key, got %v", err)
	}
}

// A key merged in from an anchor written where no key is checked (an
// extension block, an inline mapping) is checked where it is merged, so a
// typo there cannot silently turn a setting off; once, where it is first
// merged.
func TestParseReportsUnknownKeysMergedFromUncheckedPlaces(t *testing.T) {
	_, keys, err := config.Parse([]byte(`sidecar: demo
x-defaults: &defaults
  protocol: http
  upstrem: http://u
listeners:
  - <<: *defaults
    name: a
    listen: 127.0.0.1:1
  - <<: [{lisen: 127.0.0.1:2}, *defaults]
    name: b
`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range keys {
		got = append(got, k.Error())
	}
	want := []string{
		"x-defaults: unknown key (line 2)",
		"listeners[0].upstrem: unknown key (line 4)",
		"listeners[1].lisen: unknown key (line 9)",
	}
	if len(got) != len(want) {
		t.Fatalf("want %d mistakes, got %d:\n%s", len(want), len(got), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("mistake %d = %q, want it to start with %q", i, got[i], w)
		}
	}
}

// An anchor kept under an unknown key and used as a plain value (not merged)
// is checked where it is used: a typo in it cannot silently turn TLS
// verification settings off.
func TestParseReportsUnknownKeysOfAnAliasedValue(t *testing.T) {
	_, keys, err := config.Parse([]byte(`sidecar: demo
x-tls: &tls {enabled: true, ca_fle: /ca}
listeners:
  - {name: a, protocol: http, listen: 127.0.0.1:1, upstream: https://u, upstream_tls: *tls}
  - {name: b, protocol: http, listen: 127.0.0.1:2, upstream: https://u, upstream_tls: *tls}
`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range keys {
		got = append(got, k.Error())
	}
	want := []string{"x-tls: unknown key (line 2)", "listeners[0].upstream_tls.ca_fle: unknown key (line 2)"}
	if len(got) != len(want) {
		t.Fatalf("want %d mistakes, got %d:\n%s", len(want), len(got), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("mistake %d = %q, want it to start with %q", i, got[i], w)
		}
	}
}

package httplistener

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
)

// fuzzPlan masks every entity (mask) and the field "secret" whole (redact).
func fuzzPlan(t testing.TB) *masking.Plan {
	s, err := masking.Compile([]masking.Rule{
		{Name: "secret", Columns: []string{"secret"}, Strategy: masking.Redact},
		{Name: "pii", Entities: masking.EntityNames(), Strategy: masking.Mask},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s.For(domain.Analysis{}, domain.Facts{})
}

// FuzzMaskJSON holds the JSON rewriter (maskjson.go) to its promise: for
// any valid JSON document the masked one is valid JSON too (encoding/json
// reads it), no string, number or key in it still holds an entity, and
// every value under "secret" is <REDACTED> or null.
func FuzzMaskJSON(f *testing.F) {
	for _, s := range []string{
		`{"contact": "alice@example.com", "card": "4111 1111 1111 1111", "n": 4111111111111111}`,
		`[{"a": "alice\u0040example.com"}, "4111 1111 1111 1112", 1e3, true, null]`,
		`{"alice@example.com": {"secret": {"x": [1, "y"]}}, "secret": 42, "s": {"secret": "v"}}`,
		`"mail bob@corp.io or 10.0.0.1"`,
		`{"k": "\ud83d\ude00 \"quoted\" tab\t 123-45-6789", "iban": "GB82 WEST 1234 5698 7654 32"}`,
		"{\"bad\": \"\xff\xfe alice@example.com\"}",
		`  {"deep": [[[[{"secret": null}]]]], "e": ""}  `,
		`12345`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !json.Valid(doc) {
			return
		}
		values, ok := jsonValues(doc)
		if !ok {
			t.Fatalf("json.Valid reads %q, jsonValues does not", doc)
		}
		out, _ := maskJSON(fuzzPlan(t), doc, values)
		if !json.Valid(out) {
			t.Fatalf("masked %q is not JSON: %q", doc, out)
		}
		check := fuzzPlan(t).Field()
		d := json.NewDecoder(bytes.NewReader(out))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("masked %q does not decode: %v", out, err)
		}
		walkJSON(v, false, func(s string, secret bool) {
			if _, changed := check.Text(nil, []byte(s)); changed {
				t.Fatalf("masked %q still holds an entity in %q", out, s)
			}
			if secret && s != "<REDACTED>" {
				t.Fatalf("masked %q: a secret value %q", out, s)
			}
		})
	})
}

// walkJSON calls f with every string, number and key of v (decoded with
// UseNumber), and whether it is a value under a key "secret".
func walkJSON(v any, secret bool, f func(s string, secret bool)) {
	switch x := v.(type) {
	case string:
		f(x, secret)
	case json.Number:
		f(string(x), secret)
	case bool:
		if secret {
			f("true", true)
		}
	case []any:
		if secret {
			f("an array", true)
		}
		for _, e := range x {
			walkJSON(e, secret, f)
		}
	case map[string]any:
		if secret {
			f("an object", true)
		}
		for k, e := range x {
			f(k, false)
			walkJSON(e, k == "secret", f)
		}
	}
}

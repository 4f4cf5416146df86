package masking

import (
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// FuzzText: for any text, masking with every entity leaves no entity in
// the output (none found in the input, and none that masking a neighbour
// set apart), under each strategy that hides the value, and never panics.
func FuzzText(f *testing.F) {
	for _, s := range []string{
		"alice@example.com", "4111 1111 1111 1111", "4111 1111 1111 1112", "GB82 WEST 1234 5698 7654 32",
		"123-45-6780", "+1 415 555 2671", "10.0.0.1", "2001:db8::1", "AKIAIOSFODNN7EXAMPLE",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----",
		"a@b.co 4111111111111111 10.1.1.1", "ålice@exämple.com", "\xff\xfe@x.io",
	} {
		f.Add(s)
	}
	plans := map[Strategy]*Plan{}
	for _, st := range []Strategy{Redact, Mask, Partial} {
		s, err := Compile([]Rule{{Name: "pii", Entities: EntityNames(), Strategy: st, KeepLast: 0}})
		if err != nil {
			f.Fatal(err)
		}
		plans[st] = s.For(domain.Analysis{}, domain.Facts{})
	}
	f.Fuzz(func(t *testing.T, in string) {
		for st, p := range plans {
			out, _ := p.Field().Text(nil, []byte(in))
			if left := findSpans(out, p.kinds); len(left) > 0 {
				t.Fatalf("%s: %q -> %q still holds %s %q", st, in, out, left[0].entity, out[left[0].start:left[0].end])
			}
		}
	})
}

package masking

import (
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// FuzzText: for any text, no entity found in it is left in clear by
// masking with every entity, under each strategy that hides the value, and
// masking never panics. (An entity found in the output passes when its
// text was in the input outside every entity found there: glued to a word,
// it was no entity of its own, and masking a neighbour shows nothing new.)
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
			blanked := []byte(in)
			for _, sp := range findSpans(in, p.kinds) {
				for i := sp.start; i < sp.end; i++ {
					blanked[i] = 0
				}
			}
			for _, left := range findSpans(string(out), p.kinds) {
				if text := string(out[left.start:left.end]); !strings.Contains(string(blanked), text) {
					t.Fatalf("%s: %q -> %q still holds %s %q", st, in, out, left.entity, text)
				}
			}
		}
	})
}

package masking

import (
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// BenchmarkText is the cost per value of a rule with all nine entities:
// a plain word, a sentence with digits, and a value holding an email.
func BenchmarkText(b *testing.B) {
	s, _ := Compile([]Rule{{Name: "pii", Entities: EntityNames(), Strategy: Mask}})
	p := s.For(domain.Analysis{}, domain.Facts{})
	f := p.Field("", "c")
	for _, c := range []struct{ name, v string }{
		{"word", "pgbench_accounts"},
		{"sentence", "order 1234 shipped on 2024-01-15 to the warehouse in aisle 7"},
		{"email", "contact alice@example.com for the refund"},
	} {
		b.Run(c.name, func(b *testing.B) {
			v, dst := []byte(c.v), make([]byte, 0, 128)
			b.ReportAllocs()
			for b.Loop() {
				dst, _ = f.Text(dst, v)
			}
		})
	}
}

package domain_test

import (
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// benchRules are the rules of a typical http listener: one policy, two
// approval rules with target globs.
func benchRules(b *testing.B) ([]domain.PolicyRule, []domain.ApprovalRule) {
	b.Helper()
	mk := func(actions, targets []string) domain.Match {
		m := domain.Match{Actions: actions, Targets: targets}
		if err := m.Compile(); err != nil {
			b.Fatal(err)
		}
		return m
	}
	return []domain.PolicyRule{{Name: "no-admin", Match: mk(nil, []string{"/admin/**"}), Message: "never"}},
		[]domain.ApprovalRule{
			{Name: "writes", Match: mk([]string{"DELETE", "PUT", "PATCH"}, []string{"/v1/**"})},
			{Name: "transfers", Match: mk([]string{"POST"}, []string{"/v1/transfers", "/v1/accounts/*/close"})},
		}
}

// BenchmarkEvaluate applies benchRules to what the http analyzer reports for
// a request: an allowed GET (every rule tried), a held DELETE, a POST that
// reaches the second rule's globs, and a policy denial.
//
//	go test -run '^$' -bench Evaluate -benchmem ./domain/
func BenchmarkEvaluate(b *testing.B) {
	pol, appr := benchRules(b)
	cases := []struct {
		name string
		a    domain.Analysis
		want domain.Verdict
	}{
		{"allow_get", domain.Analysis{Actions: []string{"GET"}, Targets: []string{"/v1/items", "/v1/items"}}, domain.VerdictAllow},
		{"approval_delete", domain.Analysis{Actions: []string{"DELETE"}, Targets: []string{"/v1/items/42"}}, domain.VerdictApproval},
		{"approval_post_glob", domain.Analysis{Actions: []string{"POST"},
			Targets: []string{"/v1/accounts/7/close/", "/v1/accounts/7/close"}}, domain.VerdictApproval},
		{"policy", domain.Analysis{Actions: []string{"GET"}, Targets: []string{"/admin/users"}}, domain.VerdictPolicy},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if domain.Evaluate(c.a, pol, appr).Verdict != c.want {
					b.Fatal("wrong verdict")
				}
			}
		})
	}
}

// BenchmarkFingerprint fingerprints a short statement without identity
// values, one with two identity headers, and one with an 8 KiB body.
//
//	go test -run '^$' -bench Fingerprint -benchmem ./domain/
func BenchmarkFingerprint(b *testing.B) {
	base := domain.FingerprintInput{Sidecar: "bench", Listener: "api", Protocol: "http",
		Canonical: []byte("DELETE\x00/v1/items/42\x00force=true")}
	ids := base
	ids.IdentityValues = map[string][]string{"authorization": {"Bearer abc.def.ghi"}, "x-tenant": {"acme"}}
	big := base
	big.Canonical = []byte(strings.Repeat("x", 8<<10))
	for _, c := range []struct {
		name string
		in   domain.FingerprintInput
	}{{"short", base}, {"identity_keys", ids}, {"body_8KiB", big}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in.Canonical)))
			for b.Loop() {
				if fp := domain.Fingerprint(c.in); len(fp) != 67 {
					b.Fatalf("fingerprint %q", fp)
				}
			}
		})
	}
}

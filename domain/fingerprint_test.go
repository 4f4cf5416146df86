package domain_test

import (
	"regexp"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

func baseInput() domain.FingerprintInput {
	return domain.FingerprintInput{Sidecar: "demo", Listener: "pg", Protocol: "postgres", Identity: "agent",
		IdentityValues: map[string][]string{"x-team": {"payments"}, "authorization": {"Bearer a", "Bearer b"}},
		Canonical:      []byte("DELETE FROM invoices WHERE id = $1\x00" + "42")}
}

func TestFingerprintStable(t *testing.T) {
	in := baseInput()
	fp := domain.Fingerprint(in)
	if !regexp.MustCompile(`^v1:[0-9a-f]{64}$`).MatchString(fp) {
		t.Fatalf("fingerprint %q is not v1:<64 hex>", fp)
	}
	for i := 0; i < 50; i++ { // map iteration order varies between calls
		again := baseInput()
		if got := domain.Fingerprint(again); got != fp {
			t.Fatalf("fingerprint changed between calls: %s vs %s", got, fp)
		}
	}
	// Pinned: every replica and every version of the Sidecar must compute the
	// same value, or an approval filed by one is not found by another.
	const pinned = "v1:111d4631f6bdd50483547c424dbf4d9fdc9eee3a81d15ebccc6c5815e6bbd7db"
	if fp != pinned {
		t.Logf("fingerprint of the base input: %s", fp)
		t.Fatalf("fingerprint changed from the pinned value")
	}
}

func TestFingerprintChangesWithEachField(t *testing.T) {
	base := domain.Fingerprint(baseInput())
	changes := map[string]func(*domain.FingerprintInput){
		"sidecar":               func(in *domain.FingerprintInput) { in.Sidecar = "other" },
		"listener":              func(in *domain.FingerprintInput) { in.Listener = "pg2" },
		"protocol":              func(in *domain.FingerprintInput) { in.Protocol = "mysql" },
		"identity":              func(in *domain.FingerprintInput) { in.Identity = "agent2" },
		"no identity":           func(in *domain.FingerprintInput) { in.Identity = "" },
		"identity header value": func(in *domain.FingerprintInput) { in.IdentityValues["x-team"] = []string{"ledger"} },
		"identity header order": func(in *domain.FingerprintInput) {
			in.IdentityValues["authorization"] = []string{"Bearer b", "Bearer a"}
		},
		"identity header added": func(in *domain.FingerprintInput) { in.IdentityValues["x-user"] = []string{"bob"} },
		"identity header gone":  func(in *domain.FingerprintInput) { delete(in.IdentityValues, "x-team") },
		"parameters": func(in *domain.FingerprintInput) {
			in.Canonical = []byte("DELETE FROM invoices WHERE id = $1\x00" + "43")
		},
		"statement": func(in *domain.FingerprintInput) { in.Canonical = []byte("DELETE FROM invoices") },
		// Field boundaries are length-prefixed: moving bytes between fields changes it.
		"bytes moved between fields": func(in *domain.FingerprintInput) { in.Identity, in.Canonical = "agentD", in.Canonical[1:] },
	}
	seen := map[string]string{base: "base"}
	for name, change := range changes {
		in := baseInput()
		change(&in)
		fp := domain.Fingerprint(in)
		if prev, dup := seen[fp]; dup {
			t.Errorf("changing %s gives the same fingerprint as %s", name, prev)
		}
		seen[fp] = name
	}
}

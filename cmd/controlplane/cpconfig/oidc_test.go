package cpconfig

import (
	"strings"
	"testing"
)

const withOIDC = `
sidecars: [{name: demo, token: t0}]
approvers:
  - {name: alice, token: t1, email: Alice@Example.com, identities: [alice_admin, "248289761001"]}
  - {name: bob,   token: t2}
oidc:
  issuer: https://login.example.com/
  client_id: hoop-cp
  client_secret_env: CP_TEST_OIDC_SECRET
  groups_claim: groups
`

// The oidc block parses, its secret comes from the environment, and a
// person maps to an approver by verified email or by subject.
func TestParseOIDC(t *testing.T) {
	t.Setenv("CP_TEST_OIDC_SECRET", "s3cret")
	c, err := Parse([]byte(withOIDC))
	if err != nil {
		t.Fatal(err)
	}
	o := c.OIDC
	if o == nil || o.Issuer != "https://login.example.com/" || o.ClientID != "hoop-cp" || o.ClientSecret != "s3cret" || o.GroupsClaim != "groups" {
		t.Fatalf("oidc: %+v", o)
	}
	for _, tc := range []struct {
		email    string
		verified bool
		sub      string
		want     string
	}{
		{"alice@example.COM", true, "x", "alice"},
		{"alice@example.com", false, "x", ""}, // an unverified email is not trusted
		{"", false, "248289761001", "alice"},
		{"carol@example.com", true, "carol", ""},
		{"", true, "bob", "bob"},
		{"", true, "", ""},
	} {
		got, ok := o.Approver(tc.email, tc.verified, tc.sub)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Approver(%q, %v, %q) = %q, %v; want %q", tc.email, tc.verified, tc.sub, got, ok, tc.want)
		}
	}
	if c, err := Parse([]byte(strings.Split(withOIDC, "oidc:")[0])); err != nil || c.OIDC != nil {
		t.Fatalf("without oidc: %+v %v", c, err)
	}
}

func TestOIDCErrorsNameTheKey(t *testing.T) {
	t.Setenv("CP_TEST_OIDC_SECRET", "s3cret")
	for _, tc := range []struct{ from, to, want string }{
		{"issuer: https://login.example.com/", "issuer: login.example.com", `oidc.issuer: "login.example.com" is not an http(s) URL`},
		{"  client_id: hoop-cp\n", "", "oidc.client_id: missing"},
		{"CP_TEST_OIDC_SECRET", "CP_TEST_OIDC_UNSET", "oidc.client_secret_env: environment variable CP_TEST_OIDC_UNSET is not set"},
		{"  - {name: bob,   token: t2}", "  - {name: bob,   token: t2, email: alice@example.com}", "approvers[1].email: alice@example.com is already the email of alice"},
		{"groups_claim: groups", "group_claim: groups", `oidc.group_claim: unknown field "group_claim"`},
	} {
		_, err := Parse([]byte(strings.Replace(withOIDC, tc.from, tc.to, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s → %s: %v; want %q", tc.from, tc.to, err, tc.want)
		}
	}
}

package cpconfig

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// OIDCFile is the oidc block as written: approvers may sign in to the web
// page with the company's OpenID provider (docs/controlplane.md, "Signing
// in with OIDC").
type OIDCFile struct {
	Issuer          string `yaml:"issuer"`
	ClientID        string `yaml:"client_id"`
	ClientSecretEnv string `yaml:"client_secret_env"`
	GroupsClaim     string `yaml:"groups_claim"`
}

// OIDC is the validated oidc block: the secret read from its environment
// variable, and the approvers by email (lower case) and by subject.
type OIDC struct {
	Issuer, ClientID, ClientSecret, GroupsClaim string
	// ByEmail maps an approver's email, lower-cased, to its name.
	ByEmail map[string]string
	// BySubject maps each approver's identities to its name: a provider's
	// subject ("sub") listed there is that approver.
	BySubject map[string]string
}

// Approver maps a signed-in person to an approver's name: a verified email
// equal (case-insensitively) to an approver's email, else a subject listed
// in an approver's identities.
func (o *OIDC) Approver(email string, emailVerified bool, subject string) (string, bool) {
	if email != "" && emailVerified {
		if n, ok := o.ByEmail[strings.ToLower(email)]; ok {
			return n, true
		}
	}
	n, ok := o.BySubject[subject]
	return n, ok && subject != ""
}

// oidcConfig validates the oidc block (nil when absent) against the approvers.
func oidcConfig(f *OIDCFile, as []ApproverFile) (*OIDC, error) {
	if f == nil {
		return nil, nil
	}
	u, err := url.Parse(f.Issuer)
	switch {
	case f.Issuer == "":
		return nil, errors.New("oidc.issuer: missing: the provider's issuer URL, e.g. https://login.example.com/")
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		return nil, fmt.Errorf("oidc.issuer: %q is not an http(s) URL", f.Issuer)
	case strings.TrimSpace(f.ClientID) == "":
		return nil, errors.New("oidc.client_id: missing: the client id registered at the provider")
	case f.ClientSecretEnv == "":
		return nil, errors.New("oidc.client_secret_env: missing: the environment variable holding the client secret")
	}
	secret, ok := os.LookupEnv(f.ClientSecretEnv)
	if !ok || strings.TrimSpace(secret) == "" {
		return nil, fmt.Errorf("oidc.client_secret_env: environment variable %s is not set or empty", f.ClientSecretEnv)
	}
	o := &OIDC{Issuer: f.Issuer, ClientID: f.ClientID, ClientSecret: secret, GroupsClaim: f.GroupsClaim,
		ByEmail: map[string]string{}, BySubject: map[string]string{}}
	for i, a := range as {
		if a.Email != "" {
			e := strings.ToLower(a.Email)
			if prev, dup := o.ByEmail[e]; dup {
				return nil, fmt.Errorf("approvers[%d].email: %s is already the email of %s; with oidc each person has one", i, a.Email, prev)
			}
			o.ByEmail[e] = a.Name
		}
		for _, id := range append([]string{a.Name}, a.Identities...) {
			if _, dup := o.BySubject[id]; !dup {
				o.BySubject[id] = a.Name
			}
		}
	}
	return o, nil
}

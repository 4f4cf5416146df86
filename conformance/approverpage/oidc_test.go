package approverpage

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// TestOIDCSignInInChromium signs in to the page at a real OpenID provider
// (zitadel/oidc's example provider, run here), approves a request only the
// group "dba" may decide, and signs out. The config puts the approver tester
// in no group: the approval counts because the provider's groups claim says
// dba, and tester's token, which carries no claim, is refused on the API.
// A person the provider knows and the config does not is refused.
func TestOIDCSignInInChromium(t *testing.T) {
	needChromium(t)
	addr := harness.FreeAddr(t)
	issuer := provider(t, "http://"+addr+"/ui/oidc/callback")
	cp := harness.StartControlPlane(t, harness.CPOptions{
		Addr:          addr,
		TesterEmail:   idpEmail,
		MoreApprovers: []string{"{name: dba-lead, token: test-dba-lead-token, groups: [dba]}"},
		Extra: "approval_policies:\n  - {rule: db-destructive, groups: [dba]}\n" +
			"oidc: {issuer: " + issuer + ", client_id: " + idpClientID + ", client_secret_env: HOOP_TEST_OIDC_SECRET, groups_claim: groups}\n",
		Env: []string{"HOOP_TEST_OIDC_SECRET=" + idpSecret},
	})
	id := file(t, cp, map[string]any{"fingerprint": "v1:drop", "listener_name": "payments", "approval_rule": "db-destructive",
		"statement": "DROP TABLE invoices_2019", "protocol": "postgres", "client_identity": "reporting_agent"})

	// The token is tester without the provider's groups: not eligible.
	req, _ := http.NewRequest("POST", cp.URL+"/api/reviews/"+id+"/approve", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+harness.ApproverToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("approve with tester's token under a dba-only policy: HTTP %d, want 403", resp.StatusCode)
	}

	inChromium(t, cp, "oidc.mjs", 10, "ISSUER="+issuer, "IDP_USER="+idpUser, "IDP_PASSWORD="+idpPassword,
		"APPROVER=tester", "APPROVE_ID="+id, "STRANGER_USER="+strangerUser, "STRANGER_EMAIL="+strangerEmail)
	raw := cp.CLI(t, "show", id, "--json")
	if !strings.Contains(raw, `"status": "APPROVED"`) || !strings.Contains(raw, `"decided_by": "tester"`) {
		t.Errorf("approved on the page after the OIDC sign-in, the API reads:\n%s", raw)
	}
}

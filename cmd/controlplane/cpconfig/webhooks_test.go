package cpconfig

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/notify"
)

const principals = "sidecars: [{name: a, token: t0}]\napprovers: [{name: x, token: t2}]\n"

func TestWebhooksParse(t *testing.T) {
	t.Setenv("CP_TEST_SLACK_URL", "https://hooks.slack.example/services/T/B/x")
	// The Standard Webhooks spec's example secret.
	t.Setenv("CP_TEST_HOOK_SECRET", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	c, err := Parse([]byte(principals + `
public_url: https://approvals.example/
webhooks:
  - {name: ops, url: "http://127.0.0.1:9/hook", secret_env: CP_TEST_HOOK_SECRET}
  - {name: team, format: slack, url_env: CP_TEST_SLACK_URL, include_statement: true, give_up_after: 1h}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []notify.Webhook{
		{Name: "ops", URL: "http://127.0.0.1:9/hook", Format: "json"},
		{Name: "team", URL: "https://hooks.slack.example/services/T/B/x", Format: "slack", IncludeStatement: true, GiveUpAfter: time.Hour},
	}
	key := c.Webhooks[0].Secret
	c.Webhooks[0].Secret = nil
	if len(key) != 24 || !bytes.HasPrefix(key, []byte{0x31, 0xf2, 0x90}) {
		t.Errorf("secret_env: key %x", key)
	}
	if c.PublicURL != "https://approvals.example" || len(c.Webhooks) != 2 || c.Webhooks[0].Name != want[0].Name ||
		c.Webhooks[0].URL != want[0].URL || c.Webhooks[0].Format != want[0].Format || c.Webhooks[1].GiveUpAfter != want[1].GiveUpAfter ||
		c.Webhooks[1].URL != want[1].URL || c.Webhooks[1].Secret != nil || !c.Webhooks[1].IncludeStatement {
		t.Fatalf("public_url %q, webhooks %+v", c.PublicURL, c.Webhooks)
	}
	c, err = Parse([]byte("listen: 0.0.0.0:8080\n" + principals))
	if err != nil || c.PublicURL != "" || len(c.Webhooks) != 0 {
		t.Fatalf("defaults: %v %q %v", err, c.PublicURL, c.Webhooks)
	}
}

func TestWebhookErrorsNameThePath(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"webhooks: [{url: http://h/}]", "webhooks[0].name: must not be empty"},
		{"webhooks: [{name: a, url: http://h/}, {name: a, url: http://h/}]", `webhooks[1].name: "a" is already the name of webhooks[0]`},
		{"webhooks: [{name: a, format: teams, url: http://h/}]", `webhooks[0].format: "teams" is not json or slack`},
		{"webhooks: [{name: a}]", "webhooks[0].url: missing: set one of url, url_env or url_file"},
		{"webhooks: [{name: a, url: http://h/, url_env: X}]", "webhooks[0].url: set only one"},
		{"webhooks: [{name: a, url: 'ftp://secret-host/'}]", "webhooks[0].url: is not an http(s) URL"},
		{"webhooks: [{name: a, url_env: CP_TEST_UNSET_HOOK}]", "webhooks[0].url_env: environment variable CP_TEST_UNSET_HOOK is not set"},
		{"webhooks: [{name: a, url: http://h/, give_up_after: soon}]", `webhooks[0].give_up_after: "soon" is not a positive duration`},
		{"webhooks: [{name: a, url: http://h/, secret_env: CP_TEST_UNSET_SECRET}]", "webhooks[0].secret_env: environment variable CP_TEST_UNSET_SECRET is not set"},
		{"webhooks: [{name: a, url: http://h/, secret_file: /nonexistent/secret}]", "webhooks[0].secret_file: open /nonexistent/secret"},
		{"webhooks: [{name: a, url: http://h/}]\napproval_policies: [{rule: '*', remind_after: 15m, escalate_to: pager}]", `approval_policies[0].escalate_to: "pager" is not the name of a webhook`},
		{"approval_policies: [{rule: '*', remind_after: soon}]", `approval_policies[0].remind_after: "soon" is not a positive duration`},
		{"public_url: nowhere", `public_url: "nowhere" is not an http(s) URL`},
		{"webhooks: [{name: a, url: http://h/, retries: 3}]", `unknown field "retries"`},
	} {
		_, err := Parse([]byte(principals + tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.yaml, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret-host") {
			t.Errorf("the error repeats the URL: %v", err)
		}
	}
}

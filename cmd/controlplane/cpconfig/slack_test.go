package cpconfig

import (
	"strings"
	"testing"
	"time"
)

const slackApprovers = "sidecars: [{name: a, token: t0}]\napprovers: [{name: x, token: t2, slack_user: U0X}, {name: y, token: t3}]\n"

func TestSlackParse(t *testing.T) {
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-1")
	t.Setenv("CP_TEST_SIGNING", "s3cret")
	c, err := Parse([]byte(slackApprovers + `
slack: {channel: C0APPROVALS, signing_secret_env: CP_TEST_SIGNING, include_statement: true, give_up_after: 1h, api_url: "http://127.0.0.1:9/api"}
webhooks: [{name: old, format: slack, url: "https://hooks.slack.example/x"}]
`))
	if err != nil {
		t.Fatal(err)
	}
	want := Slack{Channel: "C0APPROVALS", BotToken: "xoxb-1", SigningSecret: "s3cret", APIURL: "http://127.0.0.1:9/api/", IncludeStatement: true, GiveUpAfter: time.Hour}
	if c.Slack == nil || *c.Slack != want || c.SlackUsers["U0X"] != "x" || len(c.SlackUsers) != 1 {
		t.Fatalf("slack %+v, users %v", c.Slack, c.SlackUsers)
	}
	if len(c.Webhooks) != 1 || c.Webhooks[0].Format != "slack" {
		t.Errorf("the incoming-webhook format beside the app: %+v", c.Webhooks)
	}
}

func TestSlackErrorsNameTheKey(t *testing.T) {
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-1")
	t.Setenv("SLACK_SIGNING_SECRET", "")
	for _, tc := range []struct{ yaml, want string }{
		{"slack: {channel: C1}", "slack.signing_secret_env: environment variable SLACK_SIGNING_SECRET is not set"},
		{"slack: {channel: C1, bot_token_env: CP_TEST_UNSET}", "slack.bot_token_env: environment variable CP_TEST_UNSET is not set"},
		{"slack: {signing_secret_env: SLACK_BOT_TOKEN}", "slack.channel: must not be empty"},
		{"slack: {channel: C1, signing_secret_env: SLACK_BOT_TOKEN, give_up_after: soon}", `slack.give_up_after: "soon"`},
		{"slack: {channel: C1, bot_token: xoxb-literal}", `unknown field "bot_token"`},
	} {
		_, err := Parse([]byte(slackApprovers + tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.yaml, err, tc.want)
		}
	}
	_, err := Parse([]byte("sidecars: [{name: a, token: t0}]\napprovers: [{name: x, token: t2, slack_user: U0X}, {name: y, token: t3, slack_user: U0X}]\n"))
	if err == nil || !strings.Contains(err.Error(), `approvers[1].slack_user: U0X is already the Slack user of approver "x"`) {
		t.Errorf("a shared slack_user: %v", err)
	}
}

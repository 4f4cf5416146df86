package cpconfig

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// SlackFile is the slack: block as written: the Slack app that posts each
// new request with Approve and Reject buttons (docs/controlplane.md,
// "Slack app"). The secrets come from the environment only.
type SlackFile struct {
	Channel          string `yaml:"channel"`            // channel id (C…) or name
	BotTokenEnv      string `yaml:"bot_token_env"`      // default SLACK_BOT_TOKEN (xoxb-…)
	SigningSecretEnv string `yaml:"signing_secret_env"` // default SLACK_SIGNING_SECRET
	IncludeStatement bool   `yaml:"include_statement"`  // show the statement (default false)
	GiveUpAfter      string `yaml:"give_up_after"`      // Go duration; default 10m
	APIURL           string `yaml:"api_url"`            // Web API base; default https://slack.com/api/ (a testing aid)
}

// Slack is the validated slack: block.
type Slack struct {
	Channel, BotToken, SigningSecret, APIURL string
	IncludeStatement                         bool
	GiveUpAfter                              time.Duration
}

// slack validates f.Slack (nil: no Slack app) and maps each approver's
// slack_user to its name. Errors name the key, never a secret's value.
func (f File) slack(c *Config) error {
	c.SlackUsers = map[string]string{}
	for i, a := range f.Approvers {
		if a.SlackUser == "" {
			continue
		}
		if other, dup := c.SlackUsers[a.SlackUser]; dup {
			return fmt.Errorf("approvers[%d].slack_user: %s is already the Slack user of approver %q", i, a.SlackUser, other)
		}
		c.SlackUsers[a.SlackUser] = a.Name
	}
	s := f.Slack
	if s == nil {
		return nil
	}
	if strings.TrimSpace(s.Channel) == "" {
		return errors.New("slack.channel: must not be empty (the channel id, e.g. C0123456789)")
	}
	out := &Slack{Channel: strings.TrimSpace(s.Channel), IncludeStatement: s.IncludeStatement, APIURL: s.APIURL}
	for _, e := range []struct {
		key, env, def string
		into          *string
	}{{"bot_token_env", s.BotTokenEnv, "SLACK_BOT_TOKEN", &out.BotToken}, {"signing_secret_env", s.SigningSecretEnv, "SLACK_SIGNING_SECRET", &out.SigningSecret}} {
		name := e.env
		if name == "" {
			name = e.def
		}
		v := strings.TrimSpace(os.Getenv(name))
		if v == "" {
			return fmt.Errorf("slack.%s: environment variable %s is not set", e.key, name)
		}
		*e.into = v
	}
	if s.GiveUpAfter != "" {
		d, err := time.ParseDuration(s.GiveUpAfter)
		if err != nil || d <= 0 {
			return fmt.Errorf("slack.give_up_after: %q is not a positive duration (e.g. 10m)", s.GiveUpAfter)
		}
		out.GiveUpAfter = d
	}
	if out.APIURL != "" && !strings.HasSuffix(out.APIURL, "/") {
		out.APIURL += "/"
	}
	c.Slack = out
	return nil
}

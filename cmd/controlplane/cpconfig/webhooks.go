package cpconfig

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/notify"
)

// WebhookFile is one entry of webhooks: as written. Exactly one of URL,
// URLEnv and URLFile must be set (a Slack webhook URL is a secret: prefer
// url_env or url_file).
type WebhookFile struct {
	Name             string `yaml:"name"`
	Format           string `yaml:"format"`            // json (default) or slack
	URL              string `yaml:"url"`               // literal
	URLEnv           string `yaml:"url_env"`           // an environment variable holding it
	URLFile          string `yaml:"url_file"`          // a file holding it (trimmed)
	IncludeStatement bool   `yaml:"include_statement"` // send the statement itself (default false)
	GiveUpAfter      string `yaml:"give_up_after"`     // Go duration; default 72h
	// SecretEnv or SecretFile hold the Standard Webhooks secret
	// ("whsec_" + base64) that signs each POST; neither: unsigned.
	SecretEnv  string `yaml:"secret_env"`
	SecretFile string `yaml:"secret_file"`
}

// webhooks validates the webhooks: block and public_url. The error names the
// offending path, e.g. "webhooks[1].format: ...".
func (f File) webhooks(c *Config) error {
	c.PublicURL = strings.TrimRight(f.PublicURL, "/")
	if u, err := url.Parse(c.PublicURL); c.PublicURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return fmt.Errorf("public_url: %q is not an http(s) URL", f.PublicURL)
	}
	names := map[string]int{}
	for i, w := range f.Webhooks {
		path := fmt.Sprintf("webhooks[%d]", i)
		if strings.TrimSpace(w.Name) == "" {
			return fmt.Errorf("%s.name: must not be empty", path)
		}
		if j, dup := names[w.Name]; dup {
			return fmt.Errorf("%s.name: %q is already the name of webhooks[%d]", path, w.Name, j)
		}
		names[w.Name] = i
		format := w.Format
		if format == "" {
			format = notify.FormatJSON
		}
		if format != notify.FormatJSON && format != notify.FormatSlack {
			return fmt.Errorf("%s.format: %q is not json or slack", path, w.Format)
		}
		u, field, err := w.resolveURL()
		if err != nil {
			return fmt.Errorf("%s.%s: %w", path, field, err)
		}
		var giveUp time.Duration
		if w.GiveUpAfter != "" {
			if giveUp, err = time.ParseDuration(w.GiveUpAfter); err != nil || giveUp <= 0 {
				return fmt.Errorf("%s.give_up_after: %q is not a positive duration (e.g. 10m)", path, w.GiveUpAfter)
			}
		}
		secret, field, err := w.resolveSecret()
		if err != nil {
			return fmt.Errorf("%s.%s: %w", path, field, err)
		}
		c.Webhooks = append(c.Webhooks, notify.Webhook{Name: w.Name, URL: u, Format: format,
			IncludeStatement: w.IncludeStatement, GiveUpAfter: giveUp, Secret: secret})
	}
	return nil
}

// resolveURL returns the webhook's URL and the key it came from. The error
// never repeats the URL, which may carry a secret.
func (w WebhookFile) resolveURL() (string, string, error) {
	set := 0
	for _, v := range []string{w.URL, w.URLEnv, w.URLFile} {
		if v != "" {
			set++
		}
	}
	var u, field string
	switch {
	case set == 0:
		return "", "url", errors.New("missing: set one of url, url_env or url_file")
	case set > 1:
		return "", "url", errors.New("set only one of url, url_env or url_file")
	case w.URL != "":
		u, field = w.URL, "url"
	case w.URLEnv != "":
		v, ok := os.LookupEnv(w.URLEnv)
		if !ok || strings.TrimSpace(v) == "" {
			return "", "url_env", fmt.Errorf("environment variable %s is not set", w.URLEnv)
		}
		u, field = strings.TrimSpace(v), "url_env"
	default:
		b, err := os.ReadFile(w.URLFile)
		if err != nil {
			return "", "url_file", err
		}
		u, field = strings.TrimSpace(string(b)), "url_file"
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return "", field, errors.New("is not an http(s) URL")
	}
	return u, field, nil
}

// resolveSecret returns the webhook's signing key (nil for none) and the
// key it came from. The error never repeats the secret.
func (w WebhookFile) resolveSecret() ([]byte, string, error) {
	switch {
	case w.SecretEnv != "" && w.SecretFile != "":
		return nil, "secret_env", errors.New("set only one of secret_env or secret_file")
	case w.SecretEnv != "":
		v, ok := os.LookupEnv(w.SecretEnv)
		if !ok || strings.TrimSpace(v) == "" {
			return nil, "secret_env", fmt.Errorf("environment variable %s is not set", w.SecretEnv)
		}
		key, err := notify.ParseSecret(v)
		if err != nil {
			return nil, "secret_env", fmt.Errorf("%s %w", w.SecretEnv, err)
		}
		return key, "secret_env", nil
	case w.SecretFile != "":
		b, err := os.ReadFile(w.SecretFile)
		if err != nil {
			return nil, "secret_file", err
		}
		key, err := notify.ParseSecret(string(b))
		if err != nil {
			return nil, "secret_file", fmt.Errorf("the file %w", err)
		}
		return key, "secret_file", nil
	}
	return nil, "", nil
}

// escalations checks that each policy's escalate_to names a webhook.
func escalations(c *Config) error {
	for i, p := range c.Policies.Policies {
		if p.EscalateTo == "" {
			continue
		}
		found := false
		for _, w := range c.Webhooks {
			found = found || w.Name == p.EscalateTo
		}
		if !found {
			return fmt.Errorf("approval_policies[%d].escalate_to: %q is not the name of a webhook", i, p.EscalateTo)
		}
	}
	return nil
}

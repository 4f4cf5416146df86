package cpconfig

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/notify"
	"github.com/hoophq/sidecar/cmd/controlplane/policy"
	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/internal/yamldoc"
)

// Defaults used when the file leaves a key out.
const (
	DefaultListen = "127.0.0.1:8080"
	DefaultStore  = "sqlite:./controlplane.db"
)

// Principal is one Sidecar or approver as written in the file. Exactly one of
// Token, TokenEnv and TokenFile must be set.
type Principal struct {
	Name      string `yaml:"name"`
	Token     string `yaml:"token"`
	TokenEnv  string `yaml:"token_env"`
	TokenFile string `yaml:"token_file"`
}

// File is the YAML document as written.
type File struct {
	Listen    string         `yaml:"listen"`
	Store     string         `yaml:"store"`
	Sidecars  []Principal    `yaml:"sidecars"`
	Approvers []ApproverFile `yaml:"approvers"`
	// ApprovalPolicies say who may decide a request of which approval_rule,
	// and how many approvals it needs (policies.go).
	ApprovalPolicies []PolicyFile `yaml:"approval_policies"`
	// PublicURL is the address people open the web page at, for the links
	// in notifications; default http://<listen>.
	PublicURL string        `yaml:"public_url"`
	Webhooks  []WebhookFile `yaml:"webhooks"`
	// Slack is the Slack app (slack.go); nil: none.
	Slack *SlackFile `yaml:"slack"`
	// ProcessingLease is how long a PROCESSING request lasts without its
	// Sidecar renewing it ("60s" by default, "0s" for no lease).
	ProcessingLease string `yaml:"processing_lease"`
	// OIDC lets approvers sign in to the web page with an OpenID provider (oidc.go).
	OIDC *OIDCFile `yaml:"oidc"`
}

// Config is the validated config: defaults applied, tokens resolved.
type Config struct {
	// Listen is host:port for the HTTP server.
	Listen string
	// Store is "sqlite:PATH" or a postgres:// (postgresql://) URL.
	Store string
	// Sidecars maps each Sidecar token to the Sidecar's name.
	Sidecars map[string]string
	// Approvers maps each approver token to the approver's name.
	Approvers map[string]string
	// PublicURL is the web page's address without a trailing slash; ""
	// means http://<the address serve bound>.
	PublicURL string
	// Webhooks are told of every new approval request (package notify).
	Webhooks []notify.Webhook
	// ProcessingLease is the lease of a claim to PROCESSING (0: none).
	ProcessingLease time.Duration
	// Policies are the approval policies in order and the approvers by
	// name (groups, identities).
	Policies policy.Set
	// Slack is the Slack app; nil when the file has no slack: block.
	Slack *Slack
	// SlackUsers maps each approvers[].slack_user to the approver's name.
	SlackUsers map[string]string
	// OIDC is the web page's sign-in with an OpenID provider; nil: tokens only.
	OIDC *OIDC
}

// Load reads and validates the config file at path. Errors name the file and
// the offending key path.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// Parse validates a YAML document. Unknown keys are errors (a typo must not
// silently drop a setting): the first one is returned with its path, line,
// column and the keys that exist there, e.g. "sidecars[0].tokn: unknown field
// \"tokn\" (line 4, column 5); the keys here are name, token, token_env,
// token_file". A text that is not YAML, a key written twice in one mapping, a
// value of the wrong type or a second document is an error naming its line.
// The YAML is read by internal/yamldoc, as the Sidecar's config is: a key
// written beside a merge key ("<<: *defaults") wins over the merged one.
func Parse(b []byte) (*Config, error) {
	var f File
	keys, err := yamldoc.Decode(b, &f)
	if err != nil {
		return nil, err
	}
	if len(keys) > 0 {
		k := keys[0]
		return nil, fmt.Errorf("%s: unknown field %q (line %d, column %d); %s", k.Path, k.Key, k.Line, k.Column, k.Hint())
	}
	return f.Validate()
}

// Validate applies defaults, checks every key and resolves the tokens. The
// error names the path of the first problem found, e.g. "sidecars[1].token:
// the same token is already used by sidecars[0]".
func (f File) Validate() (*Config, error) {
	c := &Config{Listen: f.Listen, Store: f.Store, Sidecars: map[string]string{}, Approvers: map[string]string{}}
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return nil, fmt.Errorf("listen: %q is not host:port: %w", c.Listen, err)
	}
	if c.Store == "" {
		c.Store = DefaultStore
	}
	if err := CheckStore(c.Store); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if len(f.Sidecars) == 0 {
		return nil, errors.New("sidecars: at least one Sidecar is needed (name and token, token_env or token_file)")
	}
	if len(f.Approvers) == 0 {
		return nil, errors.New("approvers: at least one approver is needed (name and token, token_env or token_file)")
	}
	var err error
	owner := map[string]string{} // token → path of its first use
	if err := resolveAll("sidecars", f.Sidecars, c.Sidecars, owner); err != nil {
		return nil, err
	}
	approvers := make([]Principal, len(f.Approvers))
	for i, a := range f.Approvers {
		approvers[i] = a.Principal
	}
	if err := resolveAll("approvers", approvers, c.Approvers, owner); err != nil {
		return nil, err
	}
	if c.Policies.Approvers, err = approverSet(f.Approvers); err != nil {
		return nil, err
	}
	if c.Policies.Policies, err = policies(f.ApprovalPolicies, c.Policies.Approvers); err != nil {
		return nil, err
	}
	if err = f.webhooks(c); err != nil {
		return nil, err
	}
	if err = f.slack(c); err != nil {
		return nil, err
	}
	if err = escalations(c); err != nil {
		return nil, err
	}
	if c.OIDC, err = oidcConfig(f.OIDC, f.Approvers); err != nil {
		return nil, err
	}
	lease, err := processingLease(f.ProcessingLease)
	if err != nil {
		return nil, fmt.Errorf("processing_lease: %w", err)
	}
	c.ProcessingLease = lease
	return c, nil
}

// MinProcessingLease is the shortest processing_lease other than 0: the
// Sidecar renews at a third of it, so a shorter one lapses on an ordinary
// network hiccup.
const MinProcessingLease = 3 * time.Second

// processingLease reads processing_lease ("" for the default).
func processingLease(v string) (time.Duration, error) {
	if strings.TrimSpace(v) == "" {
		return store.DefaultProcessingLease, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration such as 60s or 5m", v)
	case d < 0:
		return 0, fmt.Errorf("%q is negative", v)
	case d > 0 && d < MinProcessingLease:
		return 0, fmt.Errorf("%q is shorter than %s (0s turns the lease off)", v, MinProcessingLease)
	}
	return d, nil
}

func resolveAll(key string, ps []Principal, into map[string]string, owner map[string]string) error {
	names := map[string]int{}
	for i, p := range ps {
		path := fmt.Sprintf("%s[%d]", key, i)
		if strings.TrimSpace(p.Name) == "" {
			return fmt.Errorf("%s.name: must not be empty", path)
		}
		if j, dup := names[p.Name]; dup {
			return fmt.Errorf("%s.name: %q is already the name of %s[%d]", path, p.Name, key, j)
		}
		names[p.Name] = i
		tok, field, err := p.resolve()
		if err != nil {
			return fmt.Errorf("%s.%s: %w", path, field, err)
		}
		if prev, dup := owner[tok]; dup {
			return fmt.Errorf("%s.%s: the same token is already used by %s; every Sidecar and approver needs its own", path, field, prev)
		}
		owner[tok] = path
		into[tok] = p.Name
	}
	return nil
}

// resolve returns the token and the key it came from.
func (p Principal) resolve() (string, string, error) {
	set := 0
	for _, v := range []string{p.Token, p.TokenEnv, p.TokenFile} {
		if v != "" {
			set++
		}
	}
	switch {
	case set == 0:
		return "", "token", errors.New("missing: set one of token, token_env or token_file")
	case set > 1:
		return "", "token", errors.New("set only one of token, token_env or token_file")
	case p.Token != "":
		return check(p.Token, "token", "")
	case p.TokenEnv != "":
		v, ok := os.LookupEnv(p.TokenEnv)
		if !ok {
			return "", "token_env", fmt.Errorf("environment variable %s is not set", p.TokenEnv)
		}
		return check(v, "token_env", "environment variable "+p.TokenEnv)
	default:
		b, err := os.ReadFile(p.TokenFile)
		if err != nil {
			return "", "token_file", err
		}
		return check(strings.TrimSpace(string(b)), "token_file", "file "+p.TokenFile)
	}
}

func check(tok, field, from string) (string, string, error) {
	if from != "" {
		from = " (from " + from + ")"
	}
	if strings.TrimSpace(tok) == "" {
		return "", field, fmt.Errorf("token is empty%s", from)
	}
	if strings.ContainsAny(tok, " \t\r\n") {
		return "", field, fmt.Errorf("token contains whitespace%s", from)
	}
	return tok, field, nil
}

// CheckStore validates a store address: "sqlite:PATH" (PATH not empty, no
// '?') or a postgres:// / postgresql:// URL.
func CheckStore(s string) error {
	switch {
	case strings.HasPrefix(s, "sqlite:"):
		p := strings.TrimPrefix(s, "sqlite:")
		if p == "" {
			return errors.New(`"sqlite:" needs a file path, e.g. sqlite:./controlplane.db`)
		}
		if strings.Contains(p, "?") {
			return fmt.Errorf("sqlite path %q must not contain '?'", p)
		}
		return nil
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		if _, err := url.Parse(s); err != nil {
			return fmt.Errorf("bad PostgreSQL URL: %v", redactErr(err, s))
		}
		return nil
	default:
		return fmt.Errorf("%q is neither sqlite:PATH nor a postgres:// URL", Redact(s))
	}
}

// Redact returns a store address fit for logs: a PostgreSQL URL without its
// password.
func Redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		if err != nil && (strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")) {
			return "postgres://(unparsable URL)"
		}
		return s
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

func redactErr(err error, s string) string {
	return strings.ReplaceAll(err.Error(), s, Redact(s))
}

package config

// File is the config file as written. Durations are Go duration strings
// ("30m", "1s", "1h30m").
type File struct {
	// Sidecar is this Sidecar's name (used in fingerprints and logs). Required.
	Sidecar      string        `yaml:"sidecar"`
	ControlPlane *ControlPlane `yaml:"control_plane"`
	Log          Log           `yaml:"log"`
	Admin        *Admin        `yaml:"admin"`
	Audit        *Audit        `yaml:"audit"`
	MCP          *MCP          `yaml:"mcp"`
	Limits       *Limits       `yaml:"limits"`
	// ShutdownGrace is how long listeners drain after SIGTERM or after a
	// reload stopped them, before the connections left are closed; default
	// 25s (docs/config.md, Shutdown).
	ShutdownGrace string `yaml:"shutdown_grace"`
	// ApprovalRules and PolicyRules are named here and referenced by listeners.
	ApprovalRules []ApprovalRule `yaml:"approval_rules"`
	PolicyRules   []PolicyRule   `yaml:"policy_rules"`
	// MaskingRules are named here and referenced by listeners
	// (docs/masking.md).
	MaskingRules []MaskingRule `yaml:"masking_rules"`
	Listeners    []Listener    `yaml:"listeners"`
}

// ControlPlane is where approvals live. The token comes from an environment
// variable (token_env) or a file (token_file), never from the file itself.
type ControlPlane struct {
	URL       string `yaml:"url"`
	TokenEnv  string `yaml:"token_env"`
	TokenFile string `yaml:"token_file"`
	// Timeout per Control Plane call; default 5s.
	Timeout string `yaml:"timeout"`
}

// Log selects the log format (text, json) and level (debug, info, warn, error).
type Log struct {
	Format string `yaml:"format"`
	Level  string `yaml:"level"`
}

// Admin is the optional admin address with /healthz, /readyz and /metrics.
type Admin struct {
	Listen string `yaml:"listen"`
}

// Audit selects where decisions are written as JSON lines: a file path, or "-"
// for standard output.
type Audit struct {
	File string `yaml:"file"`
	// SkipAllows records only decisions other than plain allows (denials,
	// approvals claimed, settles, ...): a statement no rule covered leaves no
	// line. Default false: every decision is recorded.
	SkipAllows bool `yaml:"skip_allows"`
}

// MCP starts the MCP server (spec, "The MCP server"). Listen is required.
type MCP struct {
	Listen string `yaml:"listen"`
	// AllowedHosts are Host names accepted besides loopback names (DNS
	// rebinding protection), e.g. the Kubernetes Service name.
	AllowedHosts []string `yaml:"allowed_hosts"`
}

// Match selects statements; see domain.Match.
type Match struct {
	Actions []string `yaml:"actions"`
	// Effects are protocol-blind words (domain.Effects; docs/rules.md).
	Effects []string `yaml:"effects"`
	// Preset names a set of effects (domain.PresetNames) joined to Effects.
	Preset    string   `yaml:"preset"`
	Targets   []string `yaml:"targets"`
	Functions []string `yaml:"functions"`
	// Identities are globs on the client's identity: the login user, or
	// the values of the listener's identity_keys (http, grpc).
	Identities []string `yaml:"identities"`
	// Text is an RE2 pattern searched in the statement as the approver
	// reads it.
	Text string `yaml:"text"`
}

// ApprovalRule holds matching statements for a person.
type ApprovalRule struct {
	Name      string `yaml:"name"`
	Match     Match  `yaml:"match"`
	TimeLimit string `yaml:"time_limit"`
	// ReportOnly: the rule holds nothing; its matches are audited as
	// would_hold (docs/rules.md, "Report-only rules").
	ReportOnly bool `yaml:"report_only"`
}

// PolicyRule denies matching statements outright.
type PolicyRule struct {
	Name    string `yaml:"name"`
	Match   Match  `yaml:"match"`
	Message string `yaml:"message"`
	// ReportOnly: the rule denies nothing; its matches are audited as
	// would_deny.
	ReportOnly bool `yaml:"report_only"`
}

// MaskingRule says which values of results an agent reads masked
// (domain/masking.Rule; docs/masking.md).
type MaskingRule struct {
	Name string `yaml:"name"`
	// Match, when set, limits the rule to the results of the statements it
	// matches (targets, identities, …).
	Match *Match `yaml:"match"`
	// Entities are Presidio's entity names, found inside text values.
	Entities []string `yaml:"entities"`
	// Columns are dotted globs of result columns or document/JSON fields
	// masked whole.
	Columns []string `yaml:"columns"`
	// Strategy: redact, mask, partial or hash.
	Strategy string `yaml:"strategy"`
	// KeepLast is how many trailing letters and digits partial shows.
	KeepLast int `yaml:"keep_last"`
	// KeyEnv or KeyFile holds the hash strategy's key (16 bytes or more),
	// never the file itself.
	KeyEnv  string `yaml:"key_env"`
	KeyFile string `yaml:"key_file"`
	// Mode: strict (default) or best_effort, for a value the listener
	// cannot read.
	Mode string `yaml:"mode"`
}

// TLSServer is TLS offered to clients.
type TLSServer struct {
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
	// ClientCAFile: verify the client certificates sent against these CAs
	// (mongodb listeners, for MONGODB-X509).
	ClientCAFile string `yaml:"client_ca_file"`
}

// X509Login is one client certificate subject a mongodb listener logs in
// upstream for, with the certificate it presents to the upstream then.
type X509Login struct {
	Subject  string `yaml:"subject"`
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
}

// TLSClient is TLS towards the upstream.
type TLSClient struct {
	Enabled            bool   `yaml:"enabled"`
	CAFile             string `yaml:"ca_file"`
	ServerName         string `yaml:"server_name"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify"`
	CertFile           string `yaml:"cert_file"`
	KeyFile            string `yaml:"key_file"`
}

// Listener is one listener.
type Listener struct {
	Name     string `yaml:"name"`
	Protocol string `yaml:"protocol"`
	Listen   string `yaml:"listen"`
	Upstream string `yaml:"upstream"`
	// Mode: "wait" (default) holds a statement until decided; "return" denies
	// at once with the approval id.
	Mode string `yaml:"mode"`
	// WaitTimeout bounds wait mode; default 10m.
	WaitTimeout string `yaml:"wait_timeout"`
	// SpendApprovalOn: "sent" (default) or "accepted".
	SpendApprovalOn string   `yaml:"spend_approval_on"`
	ApprovalRules   []string `yaml:"approval_rules"`
	PolicyRules     []string `yaml:"policy_rules"`
	// MaskingRules name the masking rules applied to this listener's
	// results, in order (the first column rule that matches a field wins).
	MaskingRules []string   `yaml:"masking_rules"`
	IdentityKeys []string   `yaml:"identity_keys"`
	TLS          *TLSServer `yaml:"tls"`
	UpstreamTLS  *TLSClient `yaml:"upstream_tls"`
	// X509Logins (mongodb): the client certificate subjects logged in
	// upstream with MONGODB-X509, each with its upstream certificate.
	X509Logins []X509Login `yaml:"x509_logins"`
}

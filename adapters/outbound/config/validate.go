package config

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/hoophq/sidecar/domain"
)

// FieldError is one mistake in the config file, with its path.
type FieldError struct {
	// Path is the field's path, e.g. "listeners[2].listen".
	Path    string
	Message string
}

func (e FieldError) Error() string { return e.Path + ": " + e.Message }

// Errors is every mistake found by Validate.
type Errors []FieldError

func (es Errors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

var nameRE = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,62}$`)

// Protocols maps each listener protocol this binary serves (e.g. "http",
// "postgres") to what it tells Validate. The binary fills it (cmd/sidecar,
// protocols.go), so Validate names no protocol and a new protocol needs no
// change here.
type Protocols map[string]Checks

// Checks are a protocol's own config checks and the listener keys it reads
// beyond the common ones; a nil func accepts anything, a false key is a
// mistake on its listeners.
type Checks struct {
	// IdentityKeys: its listeners read identity_keys (names of headers or
	// metadata keys whose values enter the fingerprint; spec, "The
	// fingerprint"). Database listeners take the login user instead.
	IdentityKeys bool
	// ClientCertificates: its listeners verify client certificates
	// (tls.client_ca_file) and log in upstream for them (x509_logins).
	ClientCertificates bool
	// Action returns an error for an action its analyzer never reports
	// (app.ActionChecker).
	Action func(action string) error
	// Upstream returns an error for an upstream it cannot use
	// (app.UpstreamChecker).
	Upstream func(upstream string) error
	// Masking: its listeners mask results (masking_rules; docs/masking.md).
	Masking bool
	// Unread names, as examples a person recognises, the statements whose
	// body its analyzer does not read (they carry RUNS_CODE): what a rule on
	// DELETE or DROP lets through unless RUNS_CODE is held too (Warnings).
	Unread []string
}

// Validate checks f and returns every mistake (nil when there is none).
// Besides field checks it enforces the spec's startup refusals (an mcp block
// needs listen and a Control Plane) and checks each rule's actions against
// the protocols of the listeners that use it.
func Validate(f *File, protocols Protocols) Errors {
	v := &validator{}
	if f.Sidecar == "" {
		v.add("sidecar", "is required (this Sidecar's name)")
	} else if !nameRE.MatchString(f.Sidecar) {
		v.add("sidecar", "must be letters, digits, '-', '_' or '.', up to 63 characters")
	}
	if cp := f.ControlPlane; cp != nil {
		if u, err := url.Parse(cp.URL); cp.URL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			v.add("control_plane.url", "must be an http:// or https:// URL")
		} else if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			v.add("control_plane.url", "must carry no query, fragment or user info (the Sidecar token authenticates)")
		}
		if (cp.TokenEnv == "") == (cp.TokenFile == "") {
			v.add("control_plane", "set exactly one of token_env or token_file (the Sidecar token is never written in the config)")
		}
		v.duration("control_plane.timeout", cp.Timeout)
	}
	v.limits(f.Limits)
	v.duration("shutdown_grace", f.ShutdownGrace)
	if d, err := time.ParseDuration(f.ShutdownGrace); err == nil && d == 0 {
		v.add("shutdown_grace", "must be more than 0 (how long listeners drain before their connections are closed)")
	}
	switch f.Log.Format {
	case "", "text", "json":
	default:
		v.add("log.format", fmt.Sprintf("%q is not text or json", f.Log.Format))
	}
	switch f.Log.Level {
	case "", "debug", "info", "warn", "error":
	default:
		v.add("log.level", fmt.Sprintf("%q is not debug, info, warn or error", f.Log.Level))
	}
	if f.Admin != nil {
		v.hostPort("admin.listen", f.Admin.Listen)
	}
	if f.Audit != nil && f.Audit.File == "" {
		v.add("audit.file", "is required in an audit block (a path, or - for standard output)")
	}
	if f.MCP != nil {
		if f.MCP.Listen == "" {
			v.add("mcp.listen", "is required; remove the mcp block to turn the MCP server off")
		} else {
			v.hostPort("mcp.listen", f.MCP.Listen)
		}
		if f.ControlPlane == nil {
			v.add("mcp", "the MCP server needs a Control Plane: add a control_plane block or remove the mcp block")
		}
	}
	approvals := map[string]bool{}
	for i, r := range f.ApprovalRules {
		p := fmt.Sprintf("approval_rules[%d]", i)
		v.ruleName(p, r.Name, approvals)
		v.match(p+".match", r.Match)
		v.duration(p+".time_limit", r.TimeLimit)
	}
	policies := map[string]bool{}
	for i, r := range f.PolicyRules {
		p := fmt.Sprintf("policy_rules[%d]", i)
		v.ruleName(p, r.Name, policies)
		v.match(p+".match", r.Match)
	}
	masks := v.maskingRules(f.MaskingRules)
	known := map[string]bool{}
	var served []string
	for p := range protocols {
		known[p] = true
		served = append(served, p)
	}
	names, addrs := map[string]bool{}, map[string]string{}
	for i, l := range f.Listeners {
		p := fmt.Sprintf("listeners[%d]", i)
		switch {
		case l.Name == "":
			v.add(p+".name", "is required")
		case !nameRE.MatchString(l.Name):
			v.add(p+".name", "must be letters, digits, '-', '_' or '.', up to 63 characters")
		case names[l.Name]:
			v.add(p+".name", fmt.Sprintf("%q is used by another listener", l.Name))
		}
		names[l.Name] = true
		if !known[l.Protocol] {
			v.add(p+".protocol", fmt.Sprintf("%q is not one of: %s", l.Protocol, strings.Join(sorted(served), ", ")))
		}
		if v.hostPort(p+".listen", l.Listen) {
			if other, dup := addrs[l.Listen]; dup {
				v.add(p+".listen", fmt.Sprintf("%s is also the address of listener %s", l.Listen, other))
			}
			addrs[l.Listen] = l.Name
		}
		if l.Upstream == "" {
			v.add(p+".upstream", "is required")
		} else if check := protocols[l.Protocol].Upstream; check != nil {
			if err := check(l.Upstream); err != nil {
				v.add(p+".upstream", err.Error())
			}
		}
		switch l.Mode {
		case "", "wait", "return":
		default:
			v.add(p+".mode", fmt.Sprintf("%q is not wait or return", l.Mode))
		}
		v.duration(p+".wait_timeout", l.WaitTimeout)
		switch l.SpendApprovalOn {
		case "", "sent", "accepted":
		default:
			v.add(p+".spend_approval_on", fmt.Sprintf("%q is not sent or accepted", l.SpendApprovalOn))
		}
		for j, r := range l.ApprovalRules {
			if !approvals[r] {
				v.add(fmt.Sprintf("%s.approval_rules[%d]", p, j), fmt.Sprintf("no approval rule is named %q", r))
			}
		}
		for j, r := range l.PolicyRules {
			if !policies[r] {
				v.add(fmt.Sprintf("%s.policy_rules[%d]", p, j), fmt.Sprintf("no policy rule is named %q", r))
			}
		}
		for j, r := range l.MaskingRules {
			if !masks[r] {
				v.add(fmt.Sprintf("%s.masking_rules[%d]", p, j), fmt.Sprintf("no masking rule is named %q", r))
			}
		}
		if len(l.MaskingRules) > 0 && known[l.Protocol] && !protocols[l.Protocol].Masking {
			v.add(p+".masking_rules", fmt.Sprintf("a %s listener cannot mask: it cannot read the values of its "+
				"results (docs/masking.md); %s mask", l.Protocol, onlyListeners(protocols, func(c Checks) bool { return c.Masking })))
		}
		if len(l.IdentityKeys) > 0 && known[l.Protocol] && !protocols[l.Protocol].IdentityKeys {
			v.add(p+".identity_keys", fmt.Sprintf("%s read identity_keys (headers, metadata); "+
				"a %s client's identity is its login user, so these keys would never enter the fingerprint",
				onlyListeners(protocols, func(c Checks) bool { return c.IdentityKeys }), l.Protocol))
		}
		if l.TLS != nil && (l.TLS.CertFile == "") != (l.TLS.KeyFile == "") {
			v.add(p+".tls", "set both cert_file and key_file")
		}
		v.x509(p, l, protocols)
	}
	v.actions(f, protocols)
	return v.errs
}

// actions reports each rule action that no analyzer of a listener using the
// rule can report (a typo would make the rule silently never match).
func (v *validator) actions(f *File, protocols Protocols) {
	check := func(kind string, i int, m Match, name string, uses func(Listener) []string) {
		for j, a := range m.Actions { // in index order, each action's listeners in theirs
			if !isActionName(a) {
				continue // match reported it
			}
			for _, l := range f.Listeners {
				ok := protocols[l.Protocol].Action
				if ok == nil || !contains(uses(l), name) {
					continue
				}
				if err := ok(a); err != nil {
					v.add(fmt.Sprintf("%s[%d].match.actions[%d]", kind, i, j),
						fmt.Sprintf("%v (used by %s listener %s)", err, l.Protocol, l.Name))
				}
			}
		}
	}
	for i, r := range f.ApprovalRules {
		check("approval_rules", i, r.Match, r.Name, func(l Listener) []string { return l.ApprovalRules })
	}
	for i, r := range f.PolicyRules {
		check("policy_rules", i, r.Match, r.Name, func(l Listener) []string { return l.PolicyRules })
	}
}

// isActionName reports whether a is a name an analyzer could report: not
// empty, no glob character, no space.
func isActionName(a string) bool { return a != "" && !strings.ContainsAny(a, "*?[] \t") }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type validator struct{ errs Errors }

func (v *validator) add(path, msg string) { v.errs = append(v.errs, FieldError{path, msg}) }

func (v *validator) hostPort(path, s string) bool {
	if s == "" {
		v.add(path, "is required (host:port)")
		return false
	}
	if _, port, err := net.SplitHostPort(s); err != nil || port == "" {
		v.add(path, fmt.Sprintf("%q is not host:port", s))
		return false
	}
	return true
}

func (v *validator) duration(path, s string) time.Duration {
	if s == "" {
		return 0
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		v.add(path, fmt.Sprintf("%q is not a duration such as 30s, 10m or 1h", s))
	case d < 0:
		v.add(path, fmt.Sprintf("%q is negative", s))
	}
	return d
}

func (v *validator) ruleName(p, name string, seen map[string]bool) {
	switch {
	case name == "":
		v.add(p+".name", "is required")
	case seen[name]:
		v.add(p+".name", fmt.Sprintf("%q is used by another rule", name))
	}
	seen[name] = true
}

// match checks a rule's match. Actions are exact names (domain.Match), so a
// glob there would never match: it is a mistake, and an empty list is the
// way to match every action.
func (v *validator) match(p string, m Match) {
	for j, a := range m.Actions {
		switch {
		case isActionName(a):
		case strings.TrimSpace(a) != "" && !strings.ContainsAny(a, "*?[]"): // "DROP TABLE", as the statement reads
			v.add(fmt.Sprintf("%s.actions[%d]", p, j), fmt.Sprintf("%q is not an action name: action names join their "+
				"words with underscores (%s)", a, strings.Join(strings.Fields(a), "_")))
		default:
			v.add(fmt.Sprintf("%s.actions[%d]", p, j), fmt.Sprintf("%q is not an action name: actions are exact names, "+
				"not globs; list each action, or leave actions out to match every statement", a))
		}
	}
	for j, e := range m.Effects {
		if !domain.IsEffect(e) {
			v.add(fmt.Sprintf("%s.effects[%d]", p, j), fmt.Sprintf("%q is not an effect: the effects are %s (docs/rules.md)",
				e, strings.Join(domain.Effects, ", ")))
		}
	}
	if m.Preset != "" {
		if _, err := domain.PresetEffects(m.Preset); err != nil {
			v.add(p+".preset", err.Error())
		}
	}
	dm := m.domain()
	dm.Preset = "" // reported above, with its own path
	if err := dm.Compile(); err != nil {
		v.add(p, err.Error())
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// onlyListeners names the protocols whose Checks have has, for a mistake:
// "only grpc and http listeners", "only mongodb listeners", or "no
// listeners" when none has.
func onlyListeners(protocols Protocols, has func(Checks) bool) string {
	var names []string
	for name, c := range protocols {
		if has(c) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	switch len(names) {
	case 0:
		return "no listeners"
	case 1:
		return "only " + names[0] + " listeners"
	}
	return "only " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " listeners"
}

// x509 checks a listener's client certificates: tls.client_ca_file and
// x509_logins are read by the protocols with ClientCertificates only;
// x509_logins needs client certificates verified (tls.client_ca_file) and
// TLS to the upstream, and each entry a subject, unique, and both files.
func (v *validator) x509(p string, l Listener, protocols Protocols) {
	c, known := protocols[l.Protocol]
	reads := !known || c.ClientCertificates // an unknown protocol is reported once, at protocol
	only := onlyListeners(protocols, func(c Checks) bool { return c.ClientCertificates })
	hasCA := l.TLS != nil && l.TLS.ClientCAFile != ""
	if hasCA && !reads {
		v.add(p+".tls.client_ca_file", only+" verify client certificates")
	}
	if hasCA && l.TLS.CertFile == "" {
		v.add(p+".tls.client_ca_file", "needs the listener's own cert_file and key_file")
	}
	if len(l.X509Logins) == 0 {
		return
	}
	switch {
	case !reads:
		v.add(p+".x509_logins", only+" log in upstream for client certificates (MONGODB-X509)")
	case !hasCA:
		v.add(p+".x509_logins", "needs tls.client_ca_file: the listener verifies the client's certificate itself")
	case l.UpstreamTLS == nil || !l.UpstreamTLS.Enabled:
		v.add(p+".x509_logins", "needs upstream_tls enabled: the upstream certificate is presented over TLS")
	}
	seen := map[string]bool{}
	for j, x := range l.X509Logins {
		q := fmt.Sprintf("%s.x509_logins[%d]", p, j)
		switch {
		case x.Subject == "":
			v.add(q+".subject", "is required (the client certificate's subject, RFC 2253, e.g. CN=agent-1,O=example)")
		case seen[x.Subject]:
			v.add(q+".subject", fmt.Sprintf("%q is listed twice", x.Subject))
		}
		seen[x.Subject] = true
		if x.CertFile == "" || x.KeyFile == "" {
			v.add(q, "set both cert_file and key_file (the certificate presented to the upstream)")
		}
	}
}

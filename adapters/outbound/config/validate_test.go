package config_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/adapters/outbound/config"
	"github.com/hoophq/sidecar/domain"
)

func parse(t *testing.T, text string) *config.File {
	t.Helper()
	f, keys, err := config.Parse([]byte(text))
	if err != nil || len(keys) > 0 {
		t.Fatalf("parse: %v %v", keys, err)
	}
	return f
}

// protocols stands in for the binary's: "sql" knows DELETE and DROP only,
// "web" knows GET and refuses upstreams without a scheme, "open" checks nothing.
var protocols = config.Protocols{
	"sql": {Action: func(a string) error {
		if strings.EqualFold(a, "DELETE") || strings.EqualFold(a, "DROP") {
			return nil
		}
		return fmt.Errorf("%q is not a sql action", a)
	}},
	"web": {
		Action: func(a string) error {
			if strings.EqualFold(a, "GET") {
				return nil
			}
			return fmt.Errorf("%q is not a web method", a)
		},
		Upstream: func(u string) error {
			if !strings.Contains(u, "://") {
				return errors.New("needs a scheme")
			}
			return nil
		},
	},
	"open": {},
}

func paths(errs config.Errors) map[string]string {
	out := map[string]string{}
	for _, e := range errs {
		out[e.Path] += e.Message + ";"
	}
	return out
}

func TestValidateAcceptsAFullValidFile(t *testing.T) {
	f := parse(t, `
sidecar: payments
control_plane: {url: https://cp.example.com, token_env: T, timeout: 5s}
log: {format: json, level: debug}
admin: {listen: 127.0.0.1:9090}
audit: {file: "-"}
mcp: {listen: 127.0.0.1:8765}
approval_rules: [{name: holds, match: {actions: [delete], targets: ["public.*"]}, time_limit: 30m}]
policy_rules: [{name: never, match: {actions: [DROP]}, message: no}]
listeners:
  - {name: db, protocol: sql, listen: 127.0.0.1:1, upstream: db:5432, mode: return, spend_approval_on: accepted,
     wait_timeout: 1m, approval_rules: [holds], policy_rules: [never], tls: {cert_file: c, key_file: k}}
`)
	if errs := config.Validate(f, protocols); errs != nil {
		t.Fatalf("want no mistake, got:\n%v", errs)
	}
}

// Validate returns every mistake at once, each with its path.
func TestValidateReportsEveryMistakeWithItsPath(t *testing.T) {
	f := parse(t, `
sidecar: "bad name"
control_plane: {url: "ftp://cp", token_env: T, token_file: /t, timeout: soon}
log: {format: xml, level: loud}
admin: {listen: nowhere}
audit: {}
mcp: {}
approval_rules:
  - {name: holds, match: {targets: [""]}, time_limit: -1m}
  - {name: holds}
policy_rules: [{name: "", match: {functions: [""]}}]
listeners:
  - {name: a, protocol: nosuch, listen: 127.0.0.1:1, upstream: u, mode: later, spend_approval_on: never,
     approval_rules: [missing], policy_rules: [gone], tls: {cert_file: c}}
  - {name: a, protocol: web, listen: 127.0.0.1:1, upstream: no-scheme, wait_timeout: 5x}
  - {protocol: open}
`)
	got := paths(config.Validate(f, protocols))
	for path, want := range map[string]string{
		"sidecar":                        "must be letters",
		"control_plane.url":              "http:// or https://",
		"control_plane":                  "exactly one of token_env or token_file",
		"control_plane.timeout":          `"soon" is not a duration`,
		"log.format":                     `"xml" is not text or json`,
		"log.level":                      `"loud" is not debug`,
		"admin.listen":                   `"nowhere" is not host:port`,
		"audit.file":                     "is required",
		"mcp.listen":                     "is required; remove the mcp block",
		"approval_rules[0].match":        `target "": empty glob`,
		"approval_rules[0].time_limit":   "is negative",
		"approval_rules[1].name":         "used by another rule",
		"policy_rules[0].name":           "is required",
		"policy_rules[0].match":          "function",
		"listeners[0].protocol":          `"nosuch" is not one of: open, sql, web`,
		"listeners[0].mode":              `"later" is not wait or return`,
		"listeners[0].spend_approval_on": `"never" is not sent or accepted`,
		"listeners[0].approval_rules[0]": `no approval rule is named "missing"`,
		"listeners[0].policy_rules[0]":   `no policy rule is named "gone"`,
		"listeners[0].tls":               "set both cert_file and key_file",
		"listeners[1].name":              `"a" is used by another listener`,
		"listeners[1].listen":            "also the address of listener a",
		"listeners[1].upstream":          "needs a scheme",
		"listeners[1].wait_timeout":      `"5x" is not a duration`,
		"listeners[2].name":              "is required",
		"listeners[2].listen":            "is required (host:port)",
		"listeners[2].upstream":          "is required",
	} {
		if !strings.Contains(got[path], want) {
			t.Errorf("%s: want a mistake containing %q, got %q", path, want, got[path])
		}
	}
}

// The spec: "A config with the block and no Control Plane is refused at startup."
func TestValidateRefusesMCPWithoutControlPlane(t *testing.T) {
	f := parse(t, "sidecar: demo\nmcp: {listen: 127.0.0.1:8765}\n")
	if got := paths(config.Validate(f, nil)); !strings.Contains(got["mcp"], "needs a Control Plane") || len(got) != 1 {
		t.Fatalf("got %v", got)
	}
}

// A rule's actions are checked against the protocol of every listener that
// uses it, and only those: an action of another protocol in a rule no
// listener of that protocol uses is fine.
// Mistakes come in index order (each action's listeners in theirs), so a
// rule's mistakes read top to bottom as the file does.
func TestValidateChecksActionsAgainstTheListenersThatUseTheRule(t *testing.T) {
	f := parse(t, `
sidecar: demo
approval_rules:
  - {name: both, match: {actions: [DORP, DELETE, GET]}}
  - {name: web-only, match: {actions: [GET, DELETE]}}
  - {name: unused, match: {actions: [WHATEVER]}}
policy_rules:
  - {name: sql-only, match: {actions: [drop, TRUNCATE]}}
listeners:
  - {name: db, protocol: sql, listen: 127.0.0.1:1, upstream: db, approval_rules: [both], policy_rules: [sql-only]}
  - {name: api, protocol: web, listen: 127.0.0.1:2, upstream: http://u, approval_rules: [both, web-only]}
  - {name: raw, protocol: open, listen: 127.0.0.1:3, upstream: u, approval_rules: [unused]}
`)
	var got []string
	for _, e := range config.Validate(f, protocols) {
		got = append(got, e.Error())
	}
	want := []string{
		`approval_rules[0].match.actions[0]: "DORP" is not a sql action (used by sql listener db)`,
		`approval_rules[0].match.actions[0]: "DORP" is not a web method (used by web listener api)`,
		`approval_rules[0].match.actions[1]: "DELETE" is not a web method (used by web listener api)`,
		`approval_rules[0].match.actions[2]: "GET" is not a sql action (used by sql listener db)`,
		`approval_rules[1].match.actions[1]: "DELETE" is not a web method (used by web listener api)`,
		`policy_rules[0].match.actions[1]: "TRUNCATE" is not a sql action (used by sql listener db)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// An action is an exact name: a glob would never match, so it is a mistake
// (once, even on a rule a listener uses), and leaving actions out matches
// every statement.
func TestValidateRefusesGlobsInActions(t *testing.T) {
	f := parse(t, `
sidecar: demo
approval_rules: [{name: all, match: {actions: ["*", DROP_*, "", DELETE]}}]
listeners: [{name: db, protocol: sql, listen: 127.0.0.1:1, upstream: db, approval_rules: [all]}]
`)
	var got []string
	for _, e := range config.Validate(f, protocols) {
		got = append(got, e.Error())
	}
	if len(got) != 3 {
		t.Fatalf("want three mistakes, got:\n%s", strings.Join(got, "\n"))
	}
	for i, want := range []string{`approval_rules[0].match.actions[0]: "*" is not an action name`,
		`approval_rules[0].match.actions[1]: "DROP_*" is not an action name`,
		`approval_rules[0].match.actions[2]: "" is not an action name`} {
		if !strings.HasPrefix(got[i], want) || !strings.Contains(got[i], "leave actions out to match every statement") {
			t.Errorf("got %q, want %q…", got[i], want)
		}
	}
}

// An action written with a space ("DROP TABLE", as the statement reads) is
// no glob: the mistake says to write the name with an underscore.
func TestValidateActionWithASpaceSaysUnderscore(t *testing.T) {
	f := parse(t, `
sidecar: demo
approval_rules: [{name: r, match: {actions: ["DROP TABLE", "drop  view"]}}]
listeners: [{name: db, protocol: sql, listen: 127.0.0.1:1, upstream: db, approval_rules: [r]}]
`)
	var got []string
	for _, e := range config.Validate(f, protocols) {
		got = append(got, e.Error())
	}
	want := []string{
		`approval_rules[0].match.actions[0]: "DROP TABLE" is not an action name: action names join their words with underscores (DROP_TABLE)`,
		`approval_rules[0].match.actions[1]: "drop  view" is not an action name: action names join their words with underscores (drop_view)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// X.509 logins: tls.client_ca_file and x509_logins are for the protocols
// that register ClientCertificates (mongodb in the binary); the
// logins need client certificates verified, TLS to the upstream, and each
// entry a unique subject and both files. A complete block passes.
func TestValidateX509Logins(t *testing.T) {
	ps := config.Protocols{"mongodb": {ClientCertificates: true}, "sql": {}}
	f := parse(t, `
sidecar: demo
listeners:
  - {name: ok, protocol: mongodb, listen: 127.0.0.1:1, upstream: db:27017,
     tls: {cert_file: c, key_file: k, client_ca_file: ca}, upstream_tls: {enabled: true, ca_file: uca},
     x509_logins: [{subject: "CN=agent-1,O=example", cert_file: u.crt, key_file: u.key}]}
`)
	if errs := config.Validate(f, ps); errs != nil {
		t.Fatalf("want no mistake, got:\n%v", errs)
	}
	f = parse(t, `
sidecar: demo
listeners:
  - {name: a, protocol: sql, listen: 127.0.0.1:1, upstream: db, tls: {cert_file: c, key_file: k, client_ca_file: ca},
     x509_logins: [{subject: "CN=x", cert_file: u.crt, key_file: u.key}]}
  - {name: b, protocol: mongodb, listen: 127.0.0.1:2, upstream: db, tls: {cert_file: c, key_file: k},
     x509_logins: [{subject: "CN=x", cert_file: u.crt}, {subject: "CN=x", cert_file: u.crt, key_file: u.key}, {cert_file: u.crt, key_file: u.key}]}
  - {name: c, protocol: mongodb, listen: 127.0.0.1:3, upstream: db, tls: {cert_file: c, key_file: k, client_ca_file: ca},
     x509_logins: [{subject: "CN=x", cert_file: u.crt, key_file: u.key}]}
  - {name: d, protocol: mongodb, listen: 127.0.0.1:4, upstream: db, tls: {client_ca_file: ca}}
`)
	got := paths(config.Validate(f, ps))
	for path, want := range map[string]string{
		"listeners[0].tls.client_ca_file":     "only mongodb listeners verify client certificates",
		"listeners[0].x509_logins":            "only mongodb listeners",
		"listeners[1].x509_logins":            "needs tls.client_ca_file",
		"listeners[1].x509_logins[0]":         "set both cert_file and key_file",
		"listeners[1].x509_logins[1].subject": `"CN=x" is listed twice`,
		"listeners[1].x509_logins[2].subject": "is required",
		"listeners[2].x509_logins":            "needs upstream_tls enabled",
		"listeners[3].tls.client_ca_file":     "needs the listener's own cert_file",
	} {
		if !strings.Contains(got[path], want) {
			t.Errorf("%s: want a mistake containing %q, got %q", path, want, got[path])
		}
	}
}

// identity_keys are headers (http) and metadata keys (grpc), for the
// protocols that register IdentityKeys: on a database listener they would
// silently never enter the fingerprint.
func TestValidateIdentityKeysOnlyOnHTTPAndGRPC(t *testing.T) {
	ps := config.Protocols{"http": {IdentityKeys: true}, "grpc": {IdentityKeys: true}, "postgres": {}, "mssql": {}}
	f := parse(t, `
sidecar: demo
listeners:
  - {name: h, protocol: http, listen: 127.0.0.1:1, upstream: "http://x", identity_keys: [x-agent]}
  - {name: g, protocol: grpc, listen: 127.0.0.1:2, upstream: "x:1", identity_keys: [x-agent]}
  - {name: p, protocol: postgres, listen: 127.0.0.1:3, upstream: "x:1", identity_keys: [x-agent]}
  - {name: m, protocol: mssql, listen: 127.0.0.1:4, upstream: "x:1"}
`)
	got := paths(config.Validate(f, ps))
	if len(got) != 1 || !strings.Contains(got["listeners[2].identity_keys"], "only grpc and http listeners read identity_keys") {
		t.Errorf("want one mistake at listeners[2].identity_keys, got %v", got)
	}
}

// What a listener may use beyond the common keys comes from its protocol's
// registration, not from a list of protocol names in Validate: a protocol
// added later that registers IdentityKeys or ClientCertificates is accepted
// with them, and the mistakes on the others name it.
func TestValidateKeysFollowTheProtocolsRegistration(t *testing.T) {
	ps := config.Protocols{"web": {IdentityKeys: true}, "docdb": {ClientCertificates: true}, "sql": {}}
	f := parse(t, `
sidecar: demo
listeners:
  - {name: w, protocol: web, listen: 127.0.0.1:1, upstream: "x:1", identity_keys: [x-agent]}
  - {name: d, protocol: docdb, listen: 127.0.0.1:2, upstream: "x:2", tls: {cert_file: c, key_file: k, client_ca_file: ca},
     upstream_tls: {enabled: true}, x509_logins: [{subject: "CN=a", cert_file: u.crt, key_file: u.key}]}
  - {name: s, protocol: sql, listen: 127.0.0.1:3, upstream: "x:3", identity_keys: [x-agent], tls: {cert_file: c, key_file: k, client_ca_file: ca}}
`)
	got := paths(config.Validate(f, ps))
	want := map[string]string{
		"listeners[2].identity_keys":      "only web listeners read identity_keys",
		"listeners[2].tls.client_ca_file": "only docdb listeners verify client certificates",
	}
	if len(got) != len(want) {
		t.Fatalf("want %d mistakes, got %v", len(want), got)
	}
	for path, w := range want {
		if !strings.Contains(got[path], w) {
			t.Errorf("%s: want a mistake containing %q, got %q", path, w, got[path])
		}
	}
}

// Effects are the same words on every protocol (domain.Effects): a rule's
// effects are checked against that vocabulary, not against a protocol's
// actions, and a word outside it is a mistake that lists the words.
func TestValidateChecksEffectsAgainstTheVocabulary(t *testing.T) {
	f := parse(t, `
sidecar: demo
approval_rules: [{name: r, match: {effects: [delete, UNBOUNDED, DROP_TABLE]}}]
listeners: [{name: db, protocol: sql, listen: 127.0.0.1:1, upstream: db, approval_rules: [r]}]
`)
	errs := config.Validate(f, protocols)
	if len(errs) != 1 || errs[0].Path != "approval_rules[0].match.effects[2]" ||
		!strings.Contains(errs[0].Message, `"DROP_TABLE" is not an effect`) || !strings.Contains(errs[0].Message, "SCHEMA_CHANGE") {
		t.Fatalf("want one mistake at effects[2] naming the vocabulary, got %v", errs)
	}
}

// A preset is one of domain.PresetNames; a wrong name is a mistake that
// lists them. identities and text compile, report_only parses, and all of
// them reach the core's rules.
func TestValidatePresetsIdentitiesTextReportOnly(t *testing.T) {
	f := parse(t, `
sidecar: demo
approval_rules:
  - {name: a, match: {preset: destructive, effects: [INSERT]}, report_only: true}
  - {name: b, match: {preset: Destructive}}
  - {name: c, match: {identities: ["agent-*"], text: "(?i)pg_sleep"}}
  - {name: d, match: {identities: [""], text: "a(b"}}
policy_rules:
  - {name: p, match: {preset: unclassifiable}, report_only: true}
listeners: [{name: db, protocol: sql, listen: 127.0.0.1:1, upstream: db, approval_rules: [a, b, c, d], policy_rules: [p]}]
`)
	errs := config.Validate(f, protocols)
	got := map[string]string{}
	for _, e := range errs {
		got[e.Path] = e.Message
	}
	if len(errs) != 2 || !strings.Contains(got["approval_rules[1].match.preset"], `"Destructive" is not a preset: the presets are destructive, unbounded-writes, schema-changes, privilege-changes, file-and-os-access, unclassifiable`) ||
		!strings.Contains(got["approval_rules[3].match"], "identity") {
		t.Fatalf("mistakes %v", errs)
	}
	f.ApprovalRules = append(f.ApprovalRules[:1], f.ApprovalRules[2])
	f.Listeners[0].ApprovalRules = []string{"a", "c"}
	s := config.Settings(f)[0]
	if !s.Approvals[0].ReportOnly || !s.Policies[0].ReportOnly || s.Approvals[1].ReportOnly {
		t.Fatalf("report_only did not reach the rules: %+v %+v", s.Approvals, s.Policies)
	}
	del := domain.Analysis{Actions: []string{"DELETE"}, Effects: []string{"DELETE"}}
	if !s.Approvals[0].Match.Matches(del) || !s.Approvals[0].Match.Matches(domain.Analysis{Effects: []string{"INSERT"}}) {
		t.Fatal("the preset and its added effect do not match")
	}
	facts := domain.Facts{Identities: []string{"agent-1"}, Text: func() string { return "select pg_sleep(1)" }}
	if !s.Approvals[1].Match.MatchesWith(domain.Analysis{}, facts) {
		t.Fatal("identities and text do not match")
	}
	facts.Identities = []string{"alice"}
	if s.Approvals[1].Match.MatchesWith(domain.Analysis{}, facts) {
		t.Fatal("identities match another login")
	}
}

package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/adapters/outbound/config"
	"github.com/hoophq/sidecar/domain"
)

var maskingProtocols = config.Protocols{"sql": {Masking: true}, "rpc": {}}

// The example file validates, and each listener gets its rules
// compiled in its order: the pii rule masks an email in any column, the
// card-columns rule a card_number column only for agent identities on
// public.customers.
func TestMaskingRulesBecomeListenerSettings(t *testing.T) {
	t.Setenv("HASH_KEY", "a key of sixteen+ bytes")
	f := parse(t, `
sidecar: s
masking_rules:
  - name: pii
    entities: [EMAIL_ADDRESS, CREDIT_CARD, IBAN_CODE, US_SSN, PHONE_NUMBER, IP_ADDRESS, AWS_ACCESS_KEY, JWT, PRIVATE_KEY]
    strategy: mask
  - name: card-columns
    match: {targets: ["public.customers"], identities: ["agent-*"]}
    columns: ["card_number", "*.ssn"]
    strategy: partial
    keep_last: 4
  - name: ids
    columns: [user_id]
    strategy: hash
    key_env: HASH_KEY
    mode: best_effort
listeners:
  - {name: payments, protocol: sql, listen: "127.0.0.1:7001", upstream: "db:5432", masking_rules: [pii, card-columns, ids]}
  - {name: plain, protocol: sql, listen: "127.0.0.1:7002", upstream: "db:5432"}
`)
	if errs := config.Validate(f, maskingProtocols); errs != nil {
		t.Fatal(errs)
	}
	s := config.Settings(f)
	if s[1].Masking != nil {
		t.Error("a listener without masking_rules has a masking set")
	}
	m := s[0].Masking
	customers := domain.Analysis{Actions: []string{"SELECT"}, Targets: []string{"public.customers"}}
	agent := domain.Facts{Identities: []string{"agent-1"}}
	p := m.For(customers, agent)
	if got, _ := p.Field("", "card_number").Text(nil, []byte("4111111111111111")); string(got) != "************1111" {
		t.Errorf("card-columns: %q", got)
	}
	if got, _ := p.Field("", "note").Text(nil, []byte("mail bob@example.com")); string(got) != "mail ***@*******.***" {
		t.Errorf("pii: %q", got)
	}
	if got, _ := p.Field("", "user_id").Text(nil, []byte("42")); len(got) != 32 {
		t.Errorf("hash: %q", got)
	}
	human := m.For(customers, domain.Facts{Identities: []string{"alice"}})
	if human.Field("", "card_number").Whole() {
		t.Error("card-columns applied to an identity its match leaves out")
	}
}

func TestMaskingRulesRefused(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("tiny\n"), 0o600)
	os.Unsetenv("NO_SUCH_KEY_ENV")
	f := parse(t, `
sidecar: s
masking_rules:
  - {name: a, entities: [EMAIL], strategy: mask}
  - {name: b, columns: [x], strategy: blur}
  - {name: c, columns: [x], strategy: hash}
  - {name: d, columns: [x], strategy: hash, key_env: NO_SUCH_KEY_ENV}
  - {name: e, columns: [x], strategy: hash, key_file: `+short+`}
  - {name: f, strategy: redact}
  - {name: g, columns: ["a..b"], strategy: redact}
  - {name: h, columns: [x], strategy: redact, keep_last: 4}
  - {name: i, columns: [x]}
  - {name: j, columns: [x], strategy: mask, mode: lax}
  - {name: k, columns: [x], strategy: mask, match: {actions: ["DROP TABLE"]}}
listeners:
  - {name: l1, protocol: sql, listen: "127.0.0.1:7001", upstream: "db:5432", masking_rules: [a, nope]}
  - {name: l2, protocol: rpc, listen: "127.0.0.1:7002", upstream: "db:5432", masking_rules: [f]}
`)
	got := paths(config.Validate(f, maskingProtocols))
	for path, want := range map[string]string{
		"masking_rules[0].entities[0]":       `"EMAIL" is not an entity`,
		"masking_rules[1]":                   `strategy "blur"`,
		"masking_rules[2]":                   "exactly one of key_env or key_file",
		"masking_rules[3]":                   "NO_SUCH_KEY_ENV must hold a key",
		"masking_rules[4]":                   "16 bytes or more",
		"masking_rules[5]":                   "neither entities nor columns",
		"masking_rules[6]":                   "empty segment",
		"masking_rules[7].keep_last":         "partial strategy only",
		"masking_rules[8].strategy":          "is required",
		"masking_rules[9]":                   `mode "lax"`,
		"masking_rules[10].match.actions[0]": "DROP_TABLE",
		"listeners[0].masking_rules[1]":      `no masking rule is named "nope"`,
		"listeners[1].masking_rules":         "a rpc listener cannot mask",
	} {
		if !strings.Contains(got[path], want) {
			t.Errorf("%s: %q, want %q", path, got[path], want)
		}
	}
}

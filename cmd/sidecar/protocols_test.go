package main

import (
	"strings"
	"testing"

	"github.com/hoophq/sidecar/adapters/outbound/config"
	"github.com/hoophq/sidecar/app"
)

// Every protocol this binary serves tells validate its action vocabulary, so
// a typo in a rule's actions is a mistake on every listener, including the
// protocols added later.
func TestEveryProtocolChecksActions(t *testing.T) {
	checks := protocolChecks()
	for _, p := range protocols(nil) {
		if _, ok := p.(app.ActionChecker); !ok {
			t.Errorf("protocol %s does not implement app.ActionChecker", p.Name())
		}
		if c := checks[p.Name()]; c.Action == nil || c.Action("SURELY_NOT_AN_ACTION") == nil {
			t.Errorf("protocol %s: validate would accept any action", p.Name())
		}
	}
	if len(checks) < 3 {
		t.Fatalf("want postgres, http and grpc at least, got %v", checks)
	}
}

// The registry tells validate which listeners read identity_keys (http, grpc)
// and client certificates (mongodb), so the binary's checks stay what
// docs/config.md says now that validate names no protocol.
func TestTheRegistryGivesValidateEachProtocolsKeys(t *testing.T) {
	f, keys, err := config.Parse([]byte(`sidecar: demo
listeners:
  - {name: h, protocol: http, listen: 127.0.0.1:1, upstream: "http://x", identity_keys: [x-agent]}
  - {name: g, protocol: grpc, listen: 127.0.0.1:2, upstream: "x:1", identity_keys: [x-agent]}
  - {name: m, protocol: mongodb, listen: 127.0.0.1:3, upstream: "x:1", tls: {cert_file: c, key_file: k, client_ca_file: ca},
     upstream_tls: {enabled: true}, x509_logins: [{subject: "CN=a", cert_file: u.crt, key_file: u.key}]}
  - {name: p, protocol: postgres, listen: 127.0.0.1:4, upstream: "x:1", identity_keys: [x-agent]}
  - {name: s, protocol: mysql, listen: 127.0.0.1:5, upstream: "x:1", tls: {cert_file: c, key_file: k, client_ca_file: ca}}
`))
	if err != nil || len(keys) > 0 {
		t.Fatal(keys, err)
	}
	errs := config.Validate(f, protocolChecks())
	want := []string{
		"listeners[3].identity_keys: only grpc and http listeners read identity_keys",
		"listeners[4].tls.client_ca_file: only mongodb listeners verify client certificates",
	}
	if len(errs) != len(want) {
		t.Fatalf("want %d mistakes, got:\n%v", len(want), errs)
	}
	for i, w := range want {
		if !strings.HasPrefix(errs[i].Error(), w) {
			t.Errorf("mistake %d = %q, want it to start with %q", i, errs[i].Error(), w)
		}
	}
}

// Every protocol this binary serves can be explained (`sidecar explain`)
// and says what runs unread for validate's warning (http and grpc: nothing).
func TestEveryProtocolExplains(t *testing.T) {
	for _, r := range registry {
		name := r.build(nil).Name()
		if r.explain == nil {
			t.Errorf("protocol %s has no explain", name)
		}
		if unread := r.keys.Unread; (name == "http" || name == "grpc") != (len(unread) == 0) {
			t.Errorf("protocol %s: unread bodies %q", name, unread)
		}
	}
}

package config_test

import (
	"testing"
	"time"

	"github.com/hoophq/sidecar/adapters/outbound/config"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// Settings resolves each listener's rules by name, in the listener's order,
// compiled so that their globs match.
func TestSettingsResolvesListenersAndRules(t *testing.T) {
	f := parse(t, `
sidecar: demo
approval_rules:
  - {name: first, match: {actions: [DELETE], targets: ["public.*"]}, time_limit: 30m}
  - {name: second, match: {functions: [pg_sleep]}}
policy_rules: [{name: never, match: {actions: [DROP]}, message: not here}]
listeners:
  - name: db
    protocol: postgres
    listen: 127.0.0.1:1
    upstream: db:5432
    mode: return
    spend_approval_on: accepted
    wait_timeout: 90s
    approval_rules: [second, first]
    policy_rules: [never]
    tls: {cert_file: c, key_file: k}
    upstream_tls: {enabled: true, ca_file: ca, server_name: db}
  - {name: api, protocol: http, listen: 127.0.0.1:2, upstream: http://u, identity_keys: [X-User]}
`)
	if errs := config.Validate(f, config.Protocols{"postgres": {}, "http": {IdentityKeys: true}}); errs != nil {
		t.Fatal(errs)
	}
	s := config.Settings(f)
	if len(s) != 2 {
		t.Fatalf("want 2 listeners, got %d", len(s))
	}
	db, api := s[0], s[1]
	if db.Name != "db" || db.Protocol != "postgres" || db.Listen != "127.0.0.1:1" || db.Upstream != "db:5432" ||
		db.Mode != app.ModeReturn || db.SpendOn != ports.SpendOnAccepted || db.WaitTimeout != 90*time.Second {
		t.Errorf("db: %+v", db)
	}
	if len(api.IdentityKeys) != 1 || api.IdentityKeys[0] != "x-user" {
		t.Errorf("identity keys are lower case: %v", api.IdentityKeys)
	}
	if len(db.Approvals) != 2 || db.Approvals[0].Name != "second" || db.Approvals[1].Name != "first" ||
		db.Approvals[1].TimeLimit != 30*time.Minute {
		t.Fatalf("approvals in the listener's order: %+v", db.Approvals)
	}
	if !db.Approvals[1].Match.Matches(domain.Analysis{Actions: []string{"delete"}, Targets: []string{"public.t"}}) ||
		db.Approvals[1].Match.Matches(domain.Analysis{Actions: []string{"DELETE"}, Targets: []string{"other.t"}}) {
		t.Error("the rule's target glob is not compiled")
	}
	if len(db.Policies) != 1 || db.Policies[0].Message != "not here" {
		t.Errorf("policies: %+v", db.Policies)
	}
	if db.TLS != (app.TLSServer{CertFile: "c", KeyFile: "k"}) ||
		db.UpstreamTLS != (app.TLSClient{Enabled: true, CAFile: "ca", ServerName: "db"}) {
		t.Errorf("tls: %+v %+v", db.TLS, db.UpstreamTLS)
	}
	if api.Mode != app.ModeWait || api.SpendOn != ports.SpendOnSent || api.WaitTimeout != 0 ||
		api.Approvals != nil || api.Policies != nil {
		t.Errorf("defaults: %+v", api)
	}
}

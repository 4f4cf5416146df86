package config_test

import (
	"strings"
	"testing"

	"github.com/hoophq/sidecar/adapters/outbound/config"
)

// A rule on DELETE or DROP, on a listener whose statements can run bodies
// the analyzer does not read, warns unless a rule of the listener holds
// RUNS_CODE; the warning names what would slip by.
func TestWarningsNameWhatSlipsByARuleOnDeletes(t *testing.T) {
	f := parse(t, `
sidecar: demo
approval_rules:
  - {name: deletes, match: {actions: [delete]}}
  - {name: drops, match: {effects: [DROP]}}
  - {name: code, match: {effects: [RUNS_CODE]}}
  - {name: safe, match: {preset: destructive}}
  - {name: agents, match: {identities: ["agent-*"]}}
listeners:
  - {name: a, protocol: sql, listen: 127.0.0.1:1, upstream: db, approval_rules: [deletes, drops]}
  - {name: b, protocol: sql, listen: 127.0.0.1:2, upstream: db, approval_rules: [deletes, code]}
  - {name: c, protocol: sql, listen: 127.0.0.1:3, upstream: db, approval_rules: [safe]}
  - {name: d, protocol: api, listen: 127.0.0.1:4, upstream: db, approval_rules: [deletes, agents]}
  - {name: e, protocol: api, listen: 127.0.0.1:5, upstream: db, approval_rules: [agents], identity_keys: [x-agent]}
`)
	ps := config.Protocols{"sql": {Unread: []string{"CALL wipe()", "DO $$…$$"}}, "api": {IdentityKeys: true}}
	if errs := config.Validate(f, ps); errs != nil {
		t.Fatal(errs)
	}
	ws := config.Warnings(f, ps)
	if len(ws) != 2 {
		t.Fatalf("want 2 warnings, got %v", ws)
	}
	if ws[0].Path != "listeners[0]" || !strings.Contains(ws[0].Message, "approval rule deletes and approval rule drops hold DELETE or DROP") ||
		!strings.Contains(ws[0].Message, "run unheld: CALL wipe(), DO $$…$$") {
		t.Errorf("warning %v", ws[0])
	}
	if ws[1].Path != "listeners[3]" || !strings.Contains(ws[1].Message, "approval rule agents matches identities, but api listener d names no identity_keys") {
		t.Errorf("warning %v", ws[1])
	}
}

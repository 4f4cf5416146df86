package main_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/internal/rulesdoc"
)

// Every row of docs/rules.md's effects table prints, through `sidecar
// explain` on a listener of the row's protocol, exactly the row's effects:
// the table says it is written as explain reads a statement, and each
// protocol's own table test reads its analyzer alone.
func TestExplainPrintsTheEffectsTable(t *testing.T) {
	cfg := writeConfig(t, `sidecar: table
listeners:
  - {name: postgres, protocol: postgres, listen: 127.0.0.1:1, upstream: 127.0.0.1:5432}
  - {name: mysql, protocol: mysql, listen: 127.0.0.1:2, upstream: 127.0.0.1:3306}
  - {name: mssql, protocol: mssql, listen: 127.0.0.1:3, upstream: 127.0.0.1:1433}
  - {name: mongodb, protocol: mongodb, listen: 127.0.0.1:4, upstream: 127.0.0.1:27017}
  - {name: http, protocol: http, listen: 127.0.0.1:5, upstream: "http://127.0.0.1:8080"}
  - {name: grpc, protocol: grpc, listen: 127.0.0.1:6, upstream: 127.0.0.1:9090}
`)
	for _, p := range []string{"postgres", "mysql", "mssql", "mongodb", "http", "grpc"} {
		t.Run(p, func(t *testing.T) {
			rulesdoc.Check(t, p, 1, func(statement string) ([]string, error) {
				out, err := explain(t, cfg, "--listener", p, "--json", "--", statement)
				if err != nil {
					return nil, fmt.Errorf("%v: %s", err, out)
				}
				var ex struct {
					Effects []string `json:"effects"`
				}
				if err := json.Unmarshal([]byte(out), &ex); err != nil {
					return nil, fmt.Errorf("%v: %s", err, out)
				}
				return ex.Effects, nil
			})
		})
	}
}

// On http and grpc the identity is an identity_keys value: a listener that
// names no identity_keys gives no request an identity (validate warns), so
// explain --identity must not match an identities rule there either, as
// the running listener does not.
func TestExplainIdentityNeedsIdentityKeysOnHTTP(t *testing.T) {
	cfg := writeConfig(t, `sidecar: ids
approval_rules:
  - {name: agents, match: {identities: ["agent-*"]}}
listeners:
  - {name: bare, protocol: http, listen: 127.0.0.1:1, upstream: "http://x", approval_rules: [agents]}
  - {name: keyed, protocol: http, listen: 127.0.0.1:2, upstream: "http://x", identity_keys: [x-agent], approval_rules: [agents]}
`)
	for listener, want := range map[string]string{"bare": "decision: allow\n", "keyed": "decision: hold by approval rule agents\n"} {
		out, err := explain(t, cfg, "--listener", listener, "--identity", "agent-1", "DELETE /v1/a")
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("listener %s: want %q, got (%v):\n%s", listener, want, err, out)
		}
	}
}

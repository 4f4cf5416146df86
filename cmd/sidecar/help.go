package main

import "strings"

// tokenEnv is the environment variable the examples and docs name in
// control_plane.token_env. The config has no default: it must name a
// variable (token_env) or a file (token_file), and the token itself is never
// written in it.
const tokenEnv = "HOOP_SIDECAR_TOKEN"

// minimalConfig is the smallest useful config: one postgres listener, one
// approval rule, the Control Plane with its token variable. The help of
// `sidecar` and `sidecar run` and the README show it; help_test.go checks
// that it loads and validates.
const minimalConfig = `sidecar: my-sidecar
control_plane:
  url: http://127.0.0.1:8080
  token_env: ` + tokenEnv + `   # the variable that holds the Sidecar token
approval_rules:
  - name: destructive
    match: {actions: [DROP, DELETE]}
listeners:
  - name: db
    protocol: postgres
    listen: 127.0.0.1:15432
    upstream: 127.0.0.1:5432
    approval_rules: [destructive]
`

// firstConfigHelp is the part of the help that gets a new user started.
var firstConfigHelp = `A minimal config (every key: docs/config.md, github.com/hoophq/sidecar):

` + indent(minimalConfig, "  ") + `
The Sidecar token is read from the environment variable that control_plane.token_env
names (` + tokenEnv + ` above; there is no default) or from the file token_file names, never
from the config:

  export ` + tokenEnv + `=…
  sidecar validate config.yaml && sidecar run config.yaml`

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" && l != "\n" {
			b.WriteString(prefix)
		}
		b.WriteString(l)
	}
	return b.String()
}

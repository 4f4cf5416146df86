package main_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// validate must print the mistakes that make run refuse to start: a bad
// mcp.allowed_hosts entry and a Control Plane URL with a query, fragment or
// user info passed validate ("valid") and then stopped run.
func TestValidateReportsWhatRunRefuses(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	cfg := writeConfig(t, `
sidecar: demo
control_plane: {url: "http://user:pw@127.0.0.1:1/?x=1", token_env: HOOP_SIDECAR_TOKEN}
mcp: {listen: 127.0.0.1:0, allowed_hosts: ["a/b"]}
listeners: []
`)
	out, err := exec.Command(bin, "validate", cfg).CombinedOutput()
	if err == nil {
		t.Fatalf("validate exited 0:\n%s", out)
	}
	for _, want := range []string{`control_plane.url: `, `mcp.allowed_hosts: "a/b" is not a host name`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
}

// A typo in a postgres rule's actions (DORP) and typos in keys are all
// reported, each with its path, in one run: none stops the others, and none
// silently turns a safety rule off.
func TestValidateReportsEveryUnknownActionAndKey(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	cfg := writeConfig(t, `sidecar: demo
approval_rules:
  - name: destructive
    match: {actions: [DORP, DELETE]}
listeners:
  - name: payments
    protocol: postgres
    listen: 127.0.0.1:15432
    upstrem: 127.0.0.1:5432
    approval_rules: [destructive]
    mod: return
`)
	out, err := exec.Command(bin, "validate", cfg).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("validate should exit 1, got %v:\n%s", err, out)
	}
	want := []string{
		"listeners[0].upstrem: unknown key (line 9)",
		"listeners[0].mod: unknown key (line 11)",
		`listeners[0].upstream: is required`,
		`approval_rules[0].match.actions[0]: "DORP" is not an action of postgres listeners`,
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(want)+1 {
		t.Fatalf("want %d mistakes and a summary, got:\n%s", len(want), out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want it to start with %q", i+1, lines[i], w)
		}
	}
	if !strings.Contains(lines[len(want)], "4 mistake(s)") || strings.Contains(string(out), `"DELETE"`) {
		t.Errorf("DELETE is a postgres action; the summary counts 4:\n%s", out)
	}
}

// A postgres or mysql upstream that is not host:port (a URL, a host with no
// port) is a mistake validate reports, with what to write instead; run used
// to start and fail on each client's connection ("missing port in address").
func TestValidateRefusesAnUpstreamThatIsNotHostPort(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	cfg := writeConfig(t, `sidecar: demo
listeners:
  - {name: pg, protocol: postgres, listen: 127.0.0.1:15432, upstream: "postgres://db.internal:5432/app"}
  - {name: my, protocol: mysql, listen: 127.0.0.1:13306, upstream: db.internal}
  - {name: ok, protocol: postgres, listen: 127.0.0.1:15433, upstream: "[::1]:5432"}
`)
	out, err := exec.Command(bin, "validate", cfg).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("validate should exit 1, got %v:\n%s", err, out)
	}
	for _, want := range []string{
		`listeners[0].upstream: the upstream of a postgres listener is host:port (e.g. db.internal:5432), not "postgres://db.internal:5432/app": give the server's host:port`,
		`listeners[1].upstream: the upstream of a mysql listener is host:port (e.g. db.internal:3306), not "db.internal": add the port`,
		"2 mistake(s)",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
}

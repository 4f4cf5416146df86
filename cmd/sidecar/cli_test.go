package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/internal/version"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// `sidecar validate` prints one line per mistake, each with its path, and exits non-zero.
func TestValidatePrintsEveryMistakeWithItsPath(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	cfg := writeConfig(t, `
sidecar: demo
log: {format: xml}
approval_rules:
  - {name: holds, match: {actions: [DELETE]}, time_limit: soon}
listeners:
  - {name: a, protocol: nosuch, listen: 127.0.0.1:18080, upstream: http://127.0.0.1:1, approval_rules: [holds]}
`)
	out, err := exec.Command(bin, "validate", cfg).CombinedOutput()
	if err == nil {
		t.Fatalf("validate exited 0 on a bad config:\n%s", out)
	}
	for _, want := range []string{
		`approval_rules[0].time_limit: "soon" is not a duration`,
		`listeners[0].protocol: "nosuch" is not one of`,
		`log.format: "xml" is not text or json`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Count(string(out), "\n"); lines != 4 { // three mistakes and the summary
		t.Errorf("want exactly three mistakes and a summary line, got %d lines:\n%s", lines, out)
	}
}

func TestValidateAcceptsTheExampleConfig(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	out, err := exec.Command(bin, "validate", filepath.Join(harness.RepoRoot(t), "examples", "config.yaml")).CombinedOutput()
	if err != nil {
		t.Fatalf("examples/config.yaml is not valid: %v\n%s", err, out)
	}
}

// The spec: "A config with the block and no Control Plane is refused at startup."
func TestRunRefusesMCPWithoutControlPlane(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	cfg := writeConfig(t, "sidecar: demo\nmcp: {listen: 127.0.0.1:0}\nlisteners: []\n")
	out, err := exec.Command(bin, "run", "-config", cfg).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
		t.Fatalf("run should exit non-zero, got %v:\n%s", err, out)
	}
	if !strings.Contains(string(out), "the MCP server needs a Control Plane") {
		t.Fatalf("run should name the reason:\n%s", out)
	}
}

func TestRunRefusesMCPWithoutListen(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	cfg := writeConfig(t, "sidecar: demo\ncontrol_plane: {url: http://127.0.0.1:1, token_env: X}\nmcp: {}\n")
	out, err := exec.Command(bin, "run", "-config", cfg).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "mcp.listen: is required") {
		t.Fatalf("want refusal naming mcp.listen, got %v:\n%s", err, out)
	}
}

func TestVersionAndHelp(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || string(out) != "hoop sidecar "+version.Version+"\n" {
		t.Fatalf("version: %v %q", err, out)
	}
	out, err = exec.Command(bin, "run", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SIGHUP") {
		t.Fatalf("run --help: %v %q", err, out)
	}
}

// A typo in a rule's actions would make the rule silently never match: it is
// a mistake for the protocols whose analyzers have a closed vocabulary.
func TestValidateRefusesActionsTheListenerNeverSees(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	cfg := writeConfig(t, `
sidecar: demo
approval_rules:
  - {name: writes, match: {actions: [DELETE, PUTT]}}
  - {name: calls, match: {actions: [DELETE], targets: ["/pkg.Svc/*"]}}
listeners:
  - {name: api, protocol: http, listen: 127.0.0.1:18080, upstream: http://127.0.0.1:1, approval_rules: [writes]}
  - {name: ftp, protocol: http, listen: 127.0.0.1:18081, upstream: "ftp://127.0.0.1:1", wait_timeout: -1m}
  - {name: rpc, protocol: grpc, listen: 127.0.0.1:18082, upstream: 127.0.0.1:1, approval_rules: [calls]}
`)
	out, err := exec.Command(bin, "validate", cfg).CombinedOutput()
	if err == nil {
		t.Fatalf("validate accepted a typo in an action:\n%s", out)
	}
	for _, want := range []string{
		`approval_rules[0].match.actions[1]: "PUTT" is not an HTTP method`,
		`approval_rules[1].match.actions[0]: "DELETE" is not an action of grpc listeners`,
		`listeners[1].upstream: upstream "ftp://127.0.0.1:1": scheme must be http or https`,
		`listeners[1].wait_timeout: "-1m" is negative`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), `"DELETE" is not an HTTP method`) {
		t.Errorf("DELETE is an HTTP method:\n%s", out)
	}
}

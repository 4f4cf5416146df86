package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/internal/version"
)

// The minimal config that `sidecar --help`, `sidecar run --help` and the
// README show is one the Sidecar accepts: it loads and validates with no
// mistake, and it names the token variable the help talks about.
func TestHelpsMinimalConfigIsValid(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(minimalConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	f, errs, err := loadConfig(p)
	if err != nil || len(errs) > 0 {
		t.Fatalf("the help's minimal config: %v %v\n%s", err, errs, minimalConfig)
	}
	if f.ControlPlane == nil || f.ControlPlane.TokenEnv != tokenEnv || len(f.Listeners) != 1 ||
		f.Listeners[0].Protocol != "postgres" || len(f.ApprovalRules) != 1 {
		t.Fatalf("not the config the help describes: %+v", f)
	}
}

// The README's "Your first config" shows the same config as the help.
func TestReadmeShowsTheHelpsMinimalConfig(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "```yaml\n"+minimalConfig+"```") {
		t.Fatalf("README.md lacks the help's minimal config as a yaml block:\n%s", minimalConfig)
	}
}

func help(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	root := rootCmd()
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out.String())
	}
	return out.String()
}

// `sidecar --help` and `sidecar run --help` name the token variable and
// docs/config.md, and show the minimal config.
func TestHelpPointsToTheTokenAndTheDocs(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"run", "--help"}} {
		out := help(t, args...)
		for _, want := range []string{tokenEnv, "control_plane.token_env", "docs/config.md",
			indent(minimalConfig, "  "), "sidecar validate config.yaml"} {
			if !strings.Contains(out, want) {
				t.Errorf("sidecar %s lacks %q:\n%s", strings.Join(args, " "), want, out)
			}
		}
	}
}

// `sidecar version` prints internal/version's version, as `controlplane
// version` does; `completion` is there on both binaries.
func TestVersionAndCompletion(t *testing.T) {
	if out := help(t, "version"); out != "hoop sidecar "+version.Version+"\n" {
		t.Fatalf("version: %q", out)
	}
	if out := help(t, "completion", "bash"); !strings.Contains(out, "__start_sidecar") {
		t.Fatalf("completion bash: %q", out[:min(len(out), 200)])
	}
}

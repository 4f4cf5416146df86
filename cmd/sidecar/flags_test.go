package main_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// Issue 12: every command that reads a config takes --config FILE, -config
// FILE and a positional FILE, so `sidecar validate -config x` no longer fails
// with "unknown flag: --config".
func TestEveryConfigSpellingWorksOnTheBinary(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	example := filepath.Join(harness.RepoRoot(t), "examples", "config.yaml")
	bad := writeConfig(t, "sidecar: demo\nlog: {format: xml}\nlisteners: []\n")
	spellings := map[string]func(string) []string{
		"--config FILE": func(p string) []string { return []string{"--config", p} },
		"--config=FILE": func(p string) []string { return []string{"--config=" + p} },
		"-config FILE":  func(p string) []string { return []string{"-config", p} },
		"-config=FILE":  func(p string) []string { return []string{"-config=" + p} },
		"-c FILE":       func(p string) []string { return []string{"-c", p} },
		"FILE":          func(p string) []string { return []string{p} },
	}
	for name, args := range spellings {
		t.Run("validate "+name, func(t *testing.T) {
			out, err := exec.Command(bin, append([]string{"validate"}, args(example)...)...).CombinedOutput()
			if err != nil || string(out) != example+": valid\n" {
				t.Fatalf("validate %s examples/config.yaml: %v\n%s", name, err, out)
			}
			out, err = exec.Command(bin, append([]string{"validate"}, args(bad)...)...).CombinedOutput()
			if err == nil || !strings.Contains(string(out), `log.format: "xml" is not text or json`) {
				t.Fatalf("validate %s on a bad file: %v\n%s", name, err, out)
			}
		})
		t.Run("run "+name, func(t *testing.T) {
			// A file with a mistake: run reads it and refuses, naming it.
			out, err := exec.Command(bin, append([]string{"run"}, args(bad)...)...).CombinedOutput()
			if err == nil || !strings.Contains(string(out), "refusing to start: "+bad+" has 1 mistake(s)") {
				t.Fatalf("run %s: %v\n%s", name, err, out)
			}
		})
	}
}

func TestConfigFileMistakesAreSaid(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate"}, "sidecar: validate needs a config file: sidecar validate --config FILE (or sidecar validate FILE)\n"},
		{[]string{"run"}, "sidecar: run needs a config file: sidecar run --config FILE (or sidecar run FILE)\n"},
		{[]string{"validate", "a.yaml", "b.yaml"}, "sidecar: validate takes one config file, got 2 arguments: a.yaml b.yaml\n"},
		{[]string{"validate", "--config", "a.yaml", "b.yaml"}, "sidecar: validate got two config files (--config a.yaml and b.yaml); give one\n"},
	} {
		out, err := exec.Command(bin, tc.args...).CombinedOutput()
		if err == nil || string(out) != tc.want {
			t.Errorf("sidecar %s: %v\n got %q\nwant %q", strings.Join(tc.args, " "), err, out, tc.want)
		}
	}
}

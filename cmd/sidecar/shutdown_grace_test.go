package main_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// shutdown_grace must be a duration above 0: validate names the key for a
// word, a negative value and zero, and accepts a good one.
func TestValidateShutdownGrace(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	for value, want := range map[string]string{
		"soon": `shutdown_grace: "soon" is not a duration`,
		"-5s":  `shutdown_grace: "-5s" is negative`,
		"0s":   `shutdown_grace: must be more than 0`,
		"20s":  "",
	} {
		cfg := writeConfig(t, "sidecar: demo\nshutdown_grace: "+value+"\nlisteners: []\n")
		out, err := exec.Command(bin, "validate", cfg).CombinedOutput()
		if want == "" {
			if err != nil {
				t.Errorf("shutdown_grace %s refused: %s", value, out)
			}
			continue
		}
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("shutdown_grace %s: %v\n%s\nwant %q", value, err, out, want)
		}
	}
}

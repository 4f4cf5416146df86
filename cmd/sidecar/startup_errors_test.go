package main_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// A Sidecar that cannot start says why in one line, the cause's own words:
// not the dependency-injection chain (functions, Go files, a stack trace)
// around it. The first case is the most common first-run mistake: the
// token's environment variable is not exported.
func TestRunStartFailureIsOneReadableLine(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	cases := []struct{ name, config, want string }{
		{"token env unset", `
sidecar: demo
control_plane: {url: http://127.0.0.1:1, token_env: HOOP_TEST_UNSET_SIDECAR_TOKEN}
listeners: []
`, "sidecar: control_plane: control plane token: environment variable HOOP_TEST_UNSET_SIDECAR_TOKEN is not set"},
		{"tls file missing", `
sidecar: demo
listeners:
  - {name: mydb, protocol: mysql, listen: 127.0.0.1:0, upstream: 127.0.0.1:1,
     tls: {cert_file: /nonexistent/listener.crt, key_file: /nonexistent/listener.key}}
`, "sidecar: start: listener mydb: listener tls: load /nonexistent/listener.crt / /nonexistent/listener.key: open /nonexistent/listener.crt: no such file or directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, "run", writeConfig(t, c.config))
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "HOOP_TEST_UNSET_SIDECAR_TOKEN=") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("run started:\n%s", out)
			}
			text := strings.TrimSpace(string(out))
			lines := strings.Split(text, "\n")
			if last := lines[len(lines)-1]; last != c.want {
				t.Errorf("last line\n %s\nwant\n %s", last, c.want)
			}
			for _, bad := range []string{".go:", "could not build arguments", "component=fx"} {
				if strings.Contains(text, bad) {
					t.Errorf("output has %q:\n%s", bad, text)
				}
			}
		})
	}
}

package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/internal/testlog"
)

// Issue 12: `controlplane serve` takes its config as --config FILE, -config
// FILE or a positional FILE, the same as the sidecar's run and validate.
// Runs the real binary.
func TestServeTakesEveryConfigSpelling(t *testing.T) {
	bin := harness.Binary(t, "controlplane")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cp.yaml")
	if err := os.WriteFile(cfg, []byte("listen: 127.0.0.1:0\nstore: sqlite:"+filepath.Join(dir, "cp.db")+
		"\nsidecars: [{name: demo, token: dev-sidecar-token}]\napprovers: [{name: dev, token: dev-approver-token}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`msg="control plane listening" addr=(127\.0\.0\.1:\d+)`)
	for _, args := range [][]string{{"--config", cfg}, {"-config", cfg}, {"-config=" + cfg}, {"-c", cfg}, {cfg}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var logs testlog.Buffer
			cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
			cmd.Stdout, cmd.Stderr = &logs, &logs
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var addr string
			for deadline := time.Now().Add(20 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if m := re.FindStringSubmatch(logs.String()); m != nil {
					addr = m[1]
				}
			}
			if addr == "" {
				t.Fatalf("serve %s never said where it listens:\n%s", args, logs.String())
			}
			resp, err := http.Get("http://" + addr + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("healthz: %d", resp.StatusCode)
			}
			_ = cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("serve did not stop cleanly: %v\n%s", err, logs.String())
			}
		})
	}
	out, err := exec.Command(bin, "serve").CombinedOutput()
	if want := "controlplane: error: serve needs a config file: controlplane serve --config FILE (or controlplane serve FILE); see examples/controlplane.yaml\n"; err == nil || string(out) != want {
		t.Fatalf("serve without a file: %v\n got %q\nwant %q", err, out, want)
	}
}

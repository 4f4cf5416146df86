package harness

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Sidecar is a running `sidecar run` process.
type Sidecar struct {
	*Process
	ConfigPath string
}

// SidecarOptions configures StartSidecar.
type SidecarOptions struct {
	// Config is the whole config.yaml. For a Control Plane block use
	// token_env: HOOP_SIDECAR_TOKEN; Token sets that variable.
	Config string
	Token  string
	// NoWait returns right after starting, without waiting for "sidecar
	// ready" (for tests of startup refusals).
	NoWait bool
}

// StartSidecar writes the config to a temp file, starts `sidecar run -config`
// and waits until it logs "sidecar ready".
func StartSidecar(t testing.TB, o SidecarOptions) *Sidecar {
	t.Helper()
	bin := Binary(t, "sidecar")
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(o.Config), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &Sidecar{ConfigPath: path}
	s.Process = start(t, "sidecar", []string{"HOOP_SIDECAR_TOKEN=" + o.Token}, bin, "run", "-config", path)
	if !o.NoWait {
		s.WaitFor(t, "sidecar ready", 20*time.Second)
	}
	return s
}

// Reload rewrites the config file and sends SIGHUP; it waits for the reload
// log line ("reloaded" or "reload refused").
func (s *Sidecar) Reload(t testing.TB, config string) {
	t.Helper()
	if err := os.WriteFile(s.ConfigPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	before := len(s.Output())
	if err := s.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		out := s.Output()[before:]
		if containsAny(out, "reloaded listeners", "reload refused") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("sidecar did not log a reload:\n%s", s.Output())
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

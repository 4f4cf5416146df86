package main_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// `sidecar run` runs with sysmon kept out of its deep sleep (GODEBUG
// schedtrace, cmd/sidecar/sysmon.go), in the same process (the pid the
// caller started), and SIDECAR_SYSMON=default leaves the runtime as it is.
func TestRunKeepsSysmonAwake(t *testing.T) {
	const config = "sidecar: demo\nlisteners: []\n"
	godebug := func(pid int) string {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range strings.Split(string(env), "\x00") {
			if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
				return v
			}
		}
		return ""
	}
	t.Run("default", func(t *testing.T) {
		t.Setenv("GODEBUG", "http2debug=0")
		s := harness.StartSidecar(t, harness.SidecarOptions{Config: config})
		if got := godebug(s.PID()); got != "http2debug=0,schedtrace=2147483647" {
			t.Fatalf("GODEBUG of the running sidecar (pid %d) = %q, want the caller's setting and schedtrace=2147483647", s.PID(), got)
		}
	})
	t.Run("opted out", func(t *testing.T) {
		t.Setenv("SIDECAR_SYSMON", "default")
		s := harness.StartSidecar(t, harness.SidecarOptions{Config: config})
		if got := godebug(s.PID()); strings.Contains(got, "schedtrace") {
			t.Fatalf("SIDECAR_SYSMON=default: GODEBUG = %q, want no schedtrace", got)
		}
	})
}

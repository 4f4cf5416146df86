package main

import (
	"os"
	"runtime"
	"strings"
	"syscall"
)

// sysmonEnv names the environment variable that turns keepSysmonAwake off:
// SIDECAR_SYSMON=default runs with the Go runtime's own behaviour.
const sysmonEnv = "SIDECAR_SYSMON"

// sysmonSchedtrace is the GODEBUG setting keepSysmonAwake adds: schedtrace's
// period in milliseconds, the largest the runtime takes (int32, 24.8 days).
const sysmonSchedtrace = "schedtrace=2147483647"

// keepSysmonAwake re-executes `sidecar run` (same process id, arguments and
// environment) with GODEBUG=schedtrace=2147483647 added, on Linux, unless
// SIDECAR_SYSMON=default or GODEBUG already names schedtrace. It returns only
// when it does not re-execute (or the exec fails: the Sidecar then runs with
// the runtime's default).
//
// Why: between two messages of a proxied connection every P of the Go
// scheduler is often idle, so the runtime's monitor thread (sysmon) parks in
// a deep sleep, and the next read or write system call wakes it again with a
// futex; awake, it polls every 20 µs. On `pgbench -S` through the postgres
// listener that was 2.3 nanosleep and 1.1 futex calls per transaction, about
// a fifth of the listener's CPU (docs/performance.md, "PostgreSQL"). A
// schedtrace period keeps sysmon out of the deep sleep (runtime/proc.go,
// sysmon), so it backs off to one wake-up per 10 ms instead and is never
// woken by a system call. The cost: an idle Sidecar wakes 100 times a
// second, and the runtime writes one "SCHED" line to standard error per
// 24.8 days (the first at start when the host has been up that long), and a
// scheduler dump on a fatal error.
func keepSysmonAwake() {
	if runtime.GOOS != "linux" || os.Getenv(sysmonEnv) == "default" {
		return
	}
	godebug := os.Getenv("GODEBUG")
	if strings.Contains(godebug, "schedtrace=") {
		return
	}
	if godebug != "" {
		godebug += ","
	}
	env := []string{"GODEBUG=" + godebug + sysmonSchedtrace}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			env = append(env, kv)
		}
	}
	// /proc/self/exe is this very binary, even if its file was replaced.
	_ = syscall.Exec("/proc/self/exe", os.Args, env)
}

package main

import (
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/hoophq/sidecar/app"
)

// setMemoryLimit gives the Go runtime the soft memory limit that follows
// from the config's limits and its SQL listeners (app.Limits.GoMemoryLimit),
// unless the operator set GOMEMLIMIT, which wins.
func setMemoryLimit(l app.Limits, sqlListeners int, log *slog.Logger) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	n := l.GoMemoryLimit(sqlListeners)
	debug.SetMemoryLimit(n)
	log.Debug("Go memory limit set from limits.held_bytes", "bytes", n)
}

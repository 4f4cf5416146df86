package app

import (
	"io"
	"log/slog"

	"github.com/hoophq/sidecar/ports"
)

// Core bundles the protocol-blind services one Sidecar runs: the gate, the
// approval queries and the shared watcher behind both.
type Core struct {
	Gate      *Gate
	Approvals *Approvals
	Watcher   *Watcher
	// Limits are the process's memory limits (defaults filled in) and Held
	// the held-payload budget every listener of this core shares.
	Limits Limits
	Held   *HeldBudget
}

// CoreOptions configures NewCore. Zero values are fine: no Control Plane
// (CP nil), no audit, a discarding logger, no metrics (ports.NoMetrics),
// the system clock.
type CoreOptions struct {
	Sidecar string
	CP      ports.ControlPlane
	Audit   ports.AuditSink
	Log     *slog.Logger
	Metrics ports.Metrics
	Clock   ports.Clock
	// WithMCP: the config has an mcp block (the denial names approval_wait).
	WithMCP bool
	// Limits bound what the listeners hold in memory (zero fields: defaults).
	Limits Limits
}

// NewCore builds the core services from o.
func NewCore(o CoreOptions) *Core {
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Metrics == nil {
		o.Metrics = ports.NoMetrics{}
	}
	if o.Clock == nil {
		o.Clock = ports.SystemClock{}
	}
	w := &Watcher{CP: o.CP, Clock: o.Clock}
	return &Core{
		Gate: &Gate{Sidecar: o.Sidecar, CP: o.CP, Audit: o.Audit, Clock: o.Clock, Log: o.Log,
			Metrics: o.Metrics, Watch: w, WithMCP: o.WithMCP},
		Approvals: &Approvals{CP: o.CP, Watch: w, Clock: o.Clock},
		Watcher:   w,
		Limits:    o.Limits.WithDefaults(),
		Held:      NewHeldBudget(o.Limits.WithDefaults().HeldBytes),
	}
}

// Listener returns a running-listener handle for settings s on this core.
func (c *Core) Listener(s ListenerSettings) *Listener {
	l := NewListener(s, c.Gate, c.Approvals)
	l.limits, l.held = c.Limits, c.Held
	return l
}

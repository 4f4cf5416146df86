// Package ports holds the interfaces the core needs from the outside world:
// the Control Plane (where approvals live), the audit sink, the metrics of
// the gate's decisions, and the clock.
// Adapters implement them; app/ uses them; tests fake them.
package ports

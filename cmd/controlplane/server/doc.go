// Package server is the reference Control Plane's HTTP API
// (docs/control-plane-api.md): the Sidecar API under /api/sidecars/ (bearer
// Sidecar tokens, every read and write scoped to the token's Sidecar), the
// approver API under /api/reviews (bearer approver tokens: approver.go for
// list, read, approve, reject and revoke; reopen.go for a person asking
// again), the approver web
// page (package web) at /, and /healthz.
//
// New returns the http.Handler. Every answer carries X-Hoop-Api-Version
// (unless Options.OmitAPIVersion), errors are {"code","message"}, the Sidecar
// API never returns the statement, and one slog line is logged per request
// (method, path, status, duration).
package server

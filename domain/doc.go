// Package domain is the pure core of the hoop Sidecar: the approval record and
// its state machine, the status → next table with the instruction sentences,
// the legacy (review_*) names, the statement fingerprint, the reuse rule and
// the reopen rule (reopen.go: only a person asks again),
// the denial texts, and approval/policy rule matching (rules.go: what a
// rule matches; evaluate.go: which rule decides, report-only rules; effects.go
// and presets.go: the protocol-blind effects and their named sets).
//
// It imports the standard library only and does no I/O: no network, no files,
// no clocks (callers pass the time in). Everything protocol-specific lives in
// adapters; everything that talks to the Control Plane lives behind ports.
package domain

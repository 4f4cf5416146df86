// Package faults runs the Sidecar and the reference Control Plane as
// binaries with faults put between them: a proxy in front of the Control
// Plane that forwards a call and then loses its answer. An agent resends as
// the denial tells it; the test then reads the histories (the upstream's
// own rows and the Control Plane's record of the approval) and checks that
// the approved statement ran exactly once and its approval reads EXECUTED
// (docs/control-plane-api.md, "Claim"; issue 30).
//
// The upstream is this machine's PostgreSQL (or the harness's container,
// harness.PickUpstream says which).
package faults

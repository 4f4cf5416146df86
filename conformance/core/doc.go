// Package core holds the conformance tests of the foundation: the Sidecar's
// Control Plane client against the real reference Control Plane binary (CLI
// approval, scoping, expiry, claims), the "runs once" rule across two
// Sidecar processes, and what a normal start of `make run` logs.
package core

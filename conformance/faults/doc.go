// Package faults runs the Sidecar and the reference Control Plane as
// binaries with faults put between them, and checks the histories after an
// agent resends as the denials tell it: the upstream's own rows and the
// Control Plane's record of the approval (issue 30).
//
//   - lostanswer_test.go: a proxy in front of the Control Plane (proxy_test.go)
//     loses a claim's or a settle's answer after the call was applied,
//     answers past the Sidecar's timeout, takes a call and never answers, or
//     resets an answer half-way; the approved INSERT runs exactly once and
//     its approval reads EXECUTED (docs/control-plane-api.md, "Claim").
//   - lease_test.go: under spend_approval_on: accepted, a statement longer
//     than the Control Plane's processing_lease keeps its lease, and a
//     Sidecar killed (SIGKILL) between claim and settle leaves the approval
//     PROCESSING only until the lease lapses, then EXECUTED, outcome unknown
//     (docs/control-plane-api.md, "Renew").
//   - chaos_test.go: the checker in small: two Sidecar replicas, two Control
//     Plane replicas on one PostgreSQL store, a quarter of the writes to
//     them faulted at random, agents resending and an approver approving;
//     every statement ran once under exactly one EXECUTED approval, none
//     is left PROCESSING. With claims sent without a key (the code before
//     issue 30) it finds a statement with two EXECUTED approvals.
//
// The upstream is this machine's PostgreSQL (or the harness's container,
// harness.PickUpstream says which).
package faults

// Package controlplane is the Sidecar's HTTP client of its Control Plane
// (docs/control-plane-api.md, contract v1). *Client implements
// ports.ControlPlane (File, Get, List, Claim, Settle), ports.ClaimKeyKeeper
// and ports.Renewer (Renew, renew.go), and adds Info.
//
// What lives here:
//   - options.go: Options, New and the redacting String/GoString/LogValue.
//   - token.go: the Sidecar token sources (a literal, an environment
//     variable, a file). A token never appears in logs, errors or %v output.
//   - errors.go: *Error, which wraps ports.ErrNotFound, ErrUnavailable,
//     ErrOlder, ErrUnauthorized, ErrConflict or ErrTooLarge (413) together
//     with its cause, and
//     the rules that classify an HTTP answer: "older" only when the Control
//     Plane says so, a proxy's page or garbage is unavailable.
//   - transport.go: one HTTP exchange, the per-call timeout, and the retry of
//     idempotent reads (Get, List, Info) with exponential backoff.
//   - wire.go: the JSON shapes of the contract and their mapping to domain.
//   - calls.go: the calls; renew.go: Renew, the PROCESSING lease.
//
// Reads (Get, List, Info) are retried on network errors, 5xx answers and
// other unavailable answers (a proxy's HTML page without the version header), at
// most 3 tries with 100 ms..1 s backoff, bounded by the caller's context.
// File is never retried: it is not idempotent. Claim, Settle and Renew
// with a claim key are retried as reads are, and also after a try that ran
// out of the timeout (the key makes a repeat answer as the first did),
// except a give-back at a Control Plane not known to keep keys; without a
// key they are tried once.
package controlplane

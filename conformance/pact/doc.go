// Package pact is the root of the Pact contracts with the Control Plane
// (provider): the hoop Sidecar's (consumer hoop-sidecar, the Sidecar API) and
// the controlplane CLI's (consumer hoop-controlplane-cli, the approver calls
// only a person makes: reopen); see docs/contract-testing.md.
//
//   - contract: the names both sides share (pacticipants, tokens, provider
//     states, the committed pact file's path). Plain Go, no cgo.
//   - consumer: the Sidecar's real Control Plane client, and the controlplane
//     binary, against the Pact mock server; writes both pacts and checks each
//     equals its pacts/<file>.json.
//   - provider: the reference Control Plane's HTTP handler on a fresh SQLite
//     store per interaction, with the state handlers, verified against the
//     committed pacts.
//
// The consumer and provider tests need libpact_ffi and carry the build tag
// "pact"; run them with scripts/test-pact.sh (make test does).
package pact

// Package pact is the root of the Pact contract between the hoop Sidecar
// (consumer) and its Control Plane (provider); see docs/contract-testing.md.
//
//   - contract: the names both sides share (pacticipants, tokens, provider
//     states, the committed pact file's path). Plain Go, no cgo.
//   - consumer: the Sidecar's real Control Plane client against the Pact mock
//     server; writes the pact and checks it equals pacts/<file>.json.
//   - provider: the reference Control Plane's HTTP handler on a fresh SQLite
//     store per interaction, with the state handlers, verified against the
//     committed pact.
//
// The consumer and provider tests need libpact_ffi and carry the build tag
// "pact"; run them with scripts/test-pact.sh (make test does).
package pact

// Package provider verifies the reference Control Plane (cmd/controlplane)
// against the committed pact (pacts/hoop-sidecar-hoop-control-plane.json).
//
// What lives here:
//   - provider.go: Provider, the Control Plane under verification: the real
//     HTTP handler (server.New) behind an httptest server on 127.0.0.1:0,
//     rebuilt on a fresh SQLite store for every provider state.
//   - states.go: how each provider state of package contract is set up, by
//     seeding the store through its own methods (File, Decide, Claim) with
//     times in the past where a state needs them (EXPIRED).
//   - provider_test.go (build tag "pact"): the pact-go verification.
//
// docs/contract-testing.md says how to run it and how another Control Plane
// implementation verifies the same pact.
package provider

// Package consumer holds the Sidecar's side of the Pact contract with its
// Control Plane: the real outbound client (adapters/outbound/controlplane)
// run against the Pact mock server for every call a Sidecar makes and every
// answer it must handle (docs/contract-testing.md). cli_test.go does the
// same for the controlplane CLI (the binary built from this checkout) and
// the approver call only a person makes, reopen, into its own pact.
//
// The tests carry the build tag "pact" (they link libpact_ffi); run them with
// scripts/test-pact.sh. They write the pact into a temporary folder and fail
// when it differs from the committed pacts/hoop-sidecar-hoop-control-plane.json
// (pacts/hoop-controlplane-cli-hoop-control-plane.json for the CLI);
// UPDATE_PACT=1 copies the new pact over the committed one instead.
package consumer

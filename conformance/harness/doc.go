// Package harness starts the real binaries for conformance suites: the
// reference Control Plane (cmd/controlplane) on a fresh store, and Sidecars
// (cmd/sidecar) from a config. Binaries are built once per test process into
// .tools/testbin in the checkout. Everything binds loopback addresses and is stopped by
// t.Cleanup.
//
// Upstreams: an explicit URL in the environment, else the local server this
// machine runs (docs/postgres-listener.md, "Tests"); see PostgresURL.
package harness

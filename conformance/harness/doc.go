// Package harness starts the real binaries for conformance suites: the
// reference Control Plane (cmd/controlplane) on a fresh store, and Sidecars
// (cmd/sidecar) from a config. Binaries are built once per test process into
// a temporary folder. Everything binds loopback addresses and is stopped by
// t.Cleanup.
//
// Upstreams are picked per design.md: an explicit URL in the environment, a
// testcontainers container when a Docker engine answers, the local server
// this machine runs; see Postgres.
package harness

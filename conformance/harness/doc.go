// Package harness starts the real binaries for conformance suites: the
// reference Control Plane (cmd/controlplane) on a fresh store, and Sidecars
// (cmd/sidecar) from a config. Binaries are built once per test process into
// .tools/testbin in the checkout. Everything binds loopback addresses and is stopped by
// t.Cleanup.
//
// Upstreams (upstream.go, PickUpstream): an explicit URL in the environment;
// else a testcontainers-go container when an engine answers and the image is
// there, in packages whose TestMain is Main (containers.go); else the server
// this machine runs (docs/container.md, "Tests"), or for a kind with none a
// stand-in reported as such. Kinds: Postgres (postgres.go), MariaDB
// (mariadb.go), MSSQL (mssql.go: the stand-in is tdstest.Mini).
package harness

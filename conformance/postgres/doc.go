// Package postgres is the conformance suite of the postgres listener: the
// real sidecar and controlplane binaries (conformance/harness), the real
// psql binary and pgx (simple and extended protocol, pipeline mode), and a
// real PostgreSQL upstream (HOOP_TEST_POSTGRES_URL, else the local server).
// Approvals are decided with the reference Control Plane's CLI.
package postgres

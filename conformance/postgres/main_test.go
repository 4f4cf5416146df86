package postgres

import (
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// TestMain lets the harness run the suite's PostgreSQL upstream as a
// testcontainers-go container (harness.Postgres says the order) and stops it
// when the suite ends. HOOP_TEST_CONTAINERS=off runs it against this
// machine's server instead.
func TestMain(m *testing.M) { harness.Main(m) }

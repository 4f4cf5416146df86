package mssqlconf

import (
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// TestMain lets the harness start a SQL Server 2022 container when the
// image is on a Docker engine (docs/container.md, "Tests") and stops it
// when the suite ends.
func TestMain(m *testing.M) {
	harness.Main(m)
}

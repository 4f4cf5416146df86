package mysqlconf

import (
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// TestMain wires the suite's container hook to the harness's MariaDB
// container (docs/container.md, "Tests") and stops it when the suite ends.
func TestMain(m *testing.M) {
	containerMySQL = harness.MariaDBContainerURL
	harness.Main(m)
}

package container

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// The MariaDB upstream's container path (harness.MariaDB): with an engine
// and the image built by scripts/test-images.sh, PickUpstream runs
// hoop-test/mariadb:10.11 (or HOOP_TEST_MARIADB_IMAGE) through
// testcontainers-go, and the real mariadb client's SELECT 1 answers 1.
// conformance/mysql runs the mysql listener's suite against the same
// container through its hook (harness.MariaDBContainerURL).
func TestMariaDBUpstreamContainer(t *testing.T) {
	image(t) // an engine answers, or the test fails saying why
	if _, why := script("test-images.sh", "mariadb"); why != "" {
		t.Fatalf("the MariaDB image: %s", why)
	}
	t.Setenv("HOOP_TEST_MYSQL_URL", "") // the container step, not an explicit URL
	u := harness.PickUpstream(t, harness.MariaDB)
	if !strings.Contains(u.Source, "testcontainers-go container") {
		t.Fatalf("the MariaDB upstream is %s, want the testcontainers-go container", u.Source)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := harness.MariaDBQuery(ctx, u.URL, "SELECT 1; SELECT VERSION()")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || lines[0] != "1" || !strings.Contains(lines[1], "MariaDB") {
		t.Fatalf("mariadb printed %q, want 1 and a MariaDB version", out)
	}
	t.Logf("MariaDB in the container: %s", lines[1])
}

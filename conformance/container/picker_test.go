package container

import (
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// PickUpstream's order, first and last steps: an explicit URL wins; with
// containers turned off it takes this machine's server. (The container
// step is TestMariaDBUpstreamContainer and every PostgreSQL test here.)
func TestPickUpstreamOrder(t *testing.T) {
	explicit := harness.Postgres
	explicit.Name = "PostgreSQL (explicit URL)" // the picker keeps one choice per name and process
	t.Setenv(explicit.URLEnv, explicit.Local)
	if u := harness.PickUpstream(t, explicit); u.Source != explicit.URLEnv || u.URL != explicit.Local {
		t.Fatalf("with %s set the picker took %+v", explicit.URLEnv, u)
	}

	local := harness.Postgres
	local.Name = "PostgreSQL (containers off)"
	t.Setenv(local.URLEnv, "")
	t.Setenv("HOOP_TEST_CONTAINERS", "off")
	if u := harness.PickUpstream(t, local); !strings.HasPrefix(u.Source, "this machine's ") || u.URL != local.Local {
		t.Fatalf("with HOOP_TEST_CONTAINERS=off the picker took %+v", u)
	}
}

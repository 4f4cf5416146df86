package container

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// docker-compose.yml, the documented steps of docs/container.md
// ("docker compose"), with docker-compose.local.yml because no registry
// answers here: the image from make image and PostgreSQL from
// scripts/test-images.sh. psql through the Sidecar service is denied with an
// approval id, `controlplane list` and `approve` inside the controlplane
// service, the resend runs; `down` removes everything. Host ports are free
// ones (HOOP_*_PORT) and the project name is unique, so it runs beside
// other tests and `make run`.
func TestDockerCompose(t *testing.T) {
	img := image(t)
	compose, err := exec.LookPath("docker-compose")
	if err != nil {
		t.Fatal("docker-compose is not installed (make deps installs Debian's docker-compose)")
	}
	if _, why := script("test-images.sh", "postgres"); why != "" {
		t.Fatalf("the PostgreSQL image for the compose file: %s", why)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	project := "hooptest" + hex.EncodeToString(b)
	port := func() string { _, p, _ := net.SplitHostPort(harness.FreeAddr(t)); return p }
	pgPort := port()
	env := append(os.Environ(), "IMAGE="+img, "HOOP_CONTROLPLANE_PORT="+port(), "HOOP_POSTGRES_PORT="+pgPort,
		"HOOP_HTTP_PORT="+port(), "HOOP_MCP_PORT="+port())
	dc := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, compose, append([]string{"-p", project, "-f", "docker-compose.yml", "-f", "docker-compose.local.yml"}, args...)...)
		cmd.Dir, cmd.Env = harness.RepoRoot(t), env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := dc("logs", "--no-color")
			t.Logf("docker-compose logs:\n%s", out)
		}
		if out, err := dc("down", "--volumes", "--remove-orphans"); err != nil {
			t.Errorf("docker-compose down: %v\n%s", err, out)
		}
	})
	if out, err := dc("up", "-d", "--no-build"); err != nil {
		t.Fatalf("docker-compose up: %v\n%s", err, out)
	}

	psql := func(sql ...string) string {
		args := []string{"-X", fmt.Sprintf("host=127.0.0.1 port=%s user=postgres dbname=postgres sslmode=disable application_name='agent hoop-approval=return'", pgPort)}
		for _, s := range sql {
			args = append(args, "-c", s)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "psql", args...)
		cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=5")
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	// The services start in any order: wait until the Sidecar relays.
	deadline := time.Now().Add(2 * time.Minute)
	for out := psql("SELECT 1"); !strings.Contains(out, "(1 row)"); out = psql("SELECT 1") {
		if time.Now().After(deadline) {
			t.Fatalf("psql through the compose Sidecar never answered:\n%s", out)
		}
		time.Sleep(time.Second)
	}

	out := psql("CREATE TABLE compose_demo (id int)", "DROP TABLE compose_demo")
	ids := approvalIDs(out)
	if len(ids) != 1 || !strings.Contains(out, "CREATE TABLE") || !strings.Contains(out, "approval status: PENDING") {
		t.Fatalf("want CREATE TABLE then a denial with one approval id:\n%s", out)
	}
	cli := func(args ...string) string {
		out, err := dc(append([]string{"exec", "-T", "-e", "HOOP_APPROVER_TOKEN=dev-approver-token", "controlplane", "/usr/local/bin/controlplane"}, args...)...)
		if err != nil {
			t.Fatalf("controlplane %v in the compose service: %v\n%s", args, err, out)
		}
		return out
	}
	if l := cli("list"); !strings.Contains(l, ids[0]) || !strings.Contains(l, "PENDING") {
		t.Fatalf("controlplane list does not show %s PENDING:\n%s", ids[0], l)
	}
	cli("approve", ids[0])
	if out := psql("DROP TABLE compose_demo"); !strings.Contains(out, "DROP TABLE") || strings.Contains(out, "ERROR") {
		t.Fatalf("the approved resend did not run:\n%s", out)
	}
	if out := psql("SELECT count(*) FROM pg_tables WHERE tablename = 'compose_demo'"); !strings.Contains(out, "     0\n") {
		t.Fatalf("compose_demo is still there:\n%s", out)
	}
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// approvalIDs returns the distinct approval ids (UUIDs) in s: the compose
// Sidecar has an MCP server, so its denial text names approval_wait and
// puts the id first.
func approvalIDs(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range uuidRE.FindAllString(s, -1) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

package container

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"

	"github.com/hoophq/sidecar/conformance/harness"
)

// TestMain stops the containers the harness starts for upstreams. The
// containerised Sidecar's PostgreSQL upstream is this machine's server (the
// issue's setup: a Sidecar container in front of the host's database), so
// the PostgreSQL kind is pinned to harness.Postgres.Local unless the caller
// names one; conformance/postgres is the suite that runs PostgreSQL itself
// in a container. The MariaDB test here still goes through the picker.
func TestMain(m *testing.M) {
	if os.Getenv(harness.Postgres.URLEnv) == "" {
		os.Setenv(harness.Postgres.URLEnv, harness.Postgres.Local)
	}
	harness.Main(m)
}

var (
	setupOnce sync.Once
	setupErr  string
	imageName string
)

// script runs a script of the repository and returns its stdout; on failure
// it returns its stderr (the script says why) as the error text.
func script(name string, args ...string) (string, string) {
	var stdout, stderr strings.Builder
	cmd := exec.Command(filepath.Join("scripts", name), args...)
	cmd.Dir = harness.RepoRoot(nil)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), strings.TrimSpace(stderr.String() + "\n" + err.Error())
	}
	return stdout.String(), ""
}

// image makes an engine answer and returns the Sidecar image's name, built
// (or reused) by scripts/image.sh. Without an engine the test fails with
// scripts/docker-engine.sh's words: this suite never passes without one.
func image(t *testing.T) string {
	t.Helper()
	setupOnce.Do(func() {
		if _, why := script("docker-engine.sh"); why != "" {
			setupErr = "no Docker engine for the container suite: " + why
			return
		}
		out, why := script("image.sh")
		if why != "" {
			setupErr = "make image failed: " + why
			return
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		imageName = lines[len(lines)-1]
	})
	if setupErr != "" {
		t.Fatal(setupErr)
	}
	return imageName
}

// run starts a container of img on the host's network (so it reaches this
// machine's servers and the test's listeners on 127.0.0.1) with files bound
// read-only (host path -> container path), env, and entrypoint/cmd.
func run(t *testing.T, img string, files map[string]string, env map[string]string, entrypoint []string, cmd ...string) *testcontainers.DockerContainer {
	t.Helper()
	var binds []string
	for host, ctr := range files {
		binds = append(binds, host+":"+ctr+":ro")
	}
	opts := []testcontainers.ContainerCustomizer{
		testcontainers.WithEnv(env),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.NetworkMode = "host"
			hc.Binds = binds
		}),
	}
	if entrypoint != nil {
		opts = append(opts, testcontainers.WithEntrypoint(entrypoint...))
	}
	if cmd != nil {
		opts = append(opts, testcontainers.WithCmd(cmd...))
	}
	harness.TestcontainersEnv()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := testcontainers.Run(ctx, img, opts...)
	t.Cleanup(func() {
		if c != nil {
			if t.Failed() {
				t.Logf("container %s logs:\n%s", img, logs(c))
			}
			_ = c.Terminate(context.Background())
		}
	})
	if err != nil {
		t.Fatalf("start a container of %s: %v", img, err)
	}
	return c
}

// logs returns everything the container printed (stdout and stderr).
func logs(c *testcontainers.DockerContainer) string {
	rc, err := c.Logs(context.Background())
	if err != nil {
		return "(logs: " + err.Error() + ")"
	}
	defer rc.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := rc.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// execIn runs a command in the container with env and returns its exit code
// and output.
func execIn(t *testing.T, c *testcontainers.DockerContainer, env []string, cmd ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code, r, err := c.Exec(ctx, cmd, tcexec.Multiplexed(), tcexec.WithEnv(env))
	if err != nil {
		t.Fatalf("exec %v: %v", cmd, err)
	}
	var b strings.Builder
	buf := make([]byte, 8<<10)
	for {
		n, err := r.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return code, b.String()
}

// writeFile writes a file readable by the image's non-root user (65532).
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

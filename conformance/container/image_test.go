package container

import (
	"archive/tar"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/internal/version"
)

// Dockerfile.local (make image, no registry) is the root Dockerfile's last
// stage word for word, but for where the filesystem comes from.
func TestDockerfileLocalIsTheLastStage(t *testing.T) {
	root := harness.RepoRoot(t)
	stage := func(name, from string) string {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		i := strings.LastIndex(s, "\nFROM scratch\n")
		if i < 0 {
			t.Fatalf("%s has no FROM scratch stage", name)
		}
		return strings.Replace(s[i:], from, "COPY <rootfs> /", 1)
	}
	reg := stage("Dockerfile", "COPY --from=build /rootfs/ /")
	loc := stage("Dockerfile.local", "COPY rootfs/ /")
	if reg != loc {
		t.Fatalf("the last stages differ:\nDockerfile:%s\nDockerfile.local:%s", reg, loc)
	}
}

// The image: `version` prints internal/version's; user 65532 (not root),
// the Sidecar as ENTRYPOINT, OCI labels with the version; and its files are
// the two binaries, CA certificates, passwd/group and /tmp — nothing else.
func TestImageShape(t *testing.T) {
	img := image(t)
	harness.TestcontainersEnv()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := testcontainers.Run(ctx, img, testcontainers.WithCmd("version"), testcontainers.WithWaitStrategy(wait.ForExit()))
	t.Cleanup(func() { _ = c.Terminate(context.Background()) })
	if err != nil {
		t.Fatal(err)
	}
	if out := logs(c); out != "hoop sidecar "+version.Version+"\n" {
		t.Fatalf("docker run %s version printed %q", img, out)
	}

	dc, err := harness.Docker(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	ins, err := dc.ImageInspect(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	cfg := ins.Config
	if cfg.User != "65532:65532" {
		t.Errorf("USER %q, want 65532:65532 (non-root)", cfg.User)
	}
	if strings.Join(cfg.Entrypoint, " ") != "/usr/local/bin/sidecar" {
		t.Errorf("ENTRYPOINT %v", cfg.Entrypoint)
	}
	for k, v := range map[string]string{
		"org.opencontainers.image.version": version.Version,
		"org.opencontainers.image.source":  "https://github.com/hoophq/sidecar",
		"org.opencontainers.image.title":   "hoop sidecar",
	} {
		if cfg.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, cfg.Labels[k], v)
		}
	}

	files := exportedFiles(t, c)
	want := []string{"etc/group", "etc/passwd", "etc/ssl/certs/ca-certificates.crt", "tmp/",
		"usr/local/bin/controlplane", "usr/local/bin/sidecar"}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("the image holds %v, want %v", files, want)
	}
	passwd := exportedFile(t, c, "etc/passwd")
	if !strings.Contains(passwd, "hoop:x:65532:65532:") {
		t.Errorf("/etc/passwd names no user 65532:\n%s", passwd)
	}
}

// exportedFiles lists the regular files and empty folders of the
// container's filesystem, less what Docker itself adds to every container.
func exportedFiles(t *testing.T, c *testcontainers.DockerContainer) []string {
	t.Helper()
	var out []string
	dirs := map[string]bool{}
	walkExport(t, c, func(h *tar.Header, _ io.Reader) {
		name := strings.TrimPrefix(h.Name, "./")
		switch {
		case name == ".dockerenv", strings.HasPrefix(name, "dev/"), strings.HasPrefix(name, "proc/"), strings.HasPrefix(name, "sys/"),
			name == "etc/hosts", name == "etc/hostname", name == "etc/resolv.conf", name == "etc/mtab":
			return
		case h.Typeflag == tar.TypeDir:
			dirs[name] = true
		default:
			out = append(out, name)
		}
	})
	// Folders that hold nothing listed (here: /tmp) count as entries.
	for d := range dirs {
		empty := true
		for _, f := range out {
			if strings.HasPrefix(f, d) {
				empty = false
			}
		}
		for e := range dirs {
			if e != d && strings.HasPrefix(e, d) {
				empty = false
			}
		}
		if empty && d != "dev/" && d != "proc/" && d != "sys/" {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

func exportedFile(t *testing.T, c *testcontainers.DockerContainer, name string) string {
	t.Helper()
	var s string
	walkExport(t, c, func(h *tar.Header, r io.Reader) {
		if strings.TrimPrefix(h.Name, "./") == name {
			b, _ := io.ReadAll(r)
			s = string(b)
		}
	})
	return s
}

// walkExport calls fn for each entry of `docker export` of the container.
func walkExport(t *testing.T, c *testcontainers.DockerContainer, fn func(*tar.Header, io.Reader)) {
	t.Helper()
	cmd := exec.Command("docker", "export", c.GetContainerID())
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("docker export: %v", err)
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("docker export: %v", err)
		}
		fn(h, tr)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("docker export: %v", err)
	}
}

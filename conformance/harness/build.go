package harness

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// Binaries returns the paths of the sidecar and controlplane binaries, built
// once per test process from this checkout.
func Binaries(t testing.TB) (sidecar, controlplane string) {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "hoop-bin-")
		if buildErr != nil {
			return
		}
		root := RepoRoot(t)
		for _, name := range []string{"sidecar", "controlplane"} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(buildDir, name), "./cmd/"+name)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = &buildError{name: name, out: string(out), err: err}
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatalf("build binaries: %v", buildErr)
	}
	return filepath.Join(buildDir, "sidecar"), filepath.Join(buildDir, "controlplane")
}

type buildError struct {
	name, out string
	err       error
}

func (e *buildError) Error() string { return e.name + ": " + e.err.Error() + "\n" + e.out }

// RepoRoot returns the repository root (the folder holding go.mod).
func RepoRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// FreeAddr returns a free 127.0.0.1:port. The port is free when returned; a
// test binds it soon after.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

package harness

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	buildMu  sync.Mutex
	buildDir string
	built    = map[string]string{}
)

// Binary returns the path of ./cmd/<name> built from this checkout, once per
// test process.
func Binary(t testing.TB, name string) string {
	t.Helper()
	return Build(t, "./cmd/"+name)
}

// Build returns the path of the command in pkg (a path from the repository
// root, e.g. "./examples/upstream") built from this checkout, once per test
// process; the binary is named after pkg's last element.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	name := filepath.Base(pkg)
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[pkg]; ok {
		return p
	}
	if buildDir == "" {
		// One folder per checkout (ignored by git), so runs leave no temp folders behind.
		buildDir = filepath.Join(RepoRoot(t), ".tools", "testbin")
		if err := os.MkdirAll(buildDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(buildDir, name)
	// Build beside it and rename: test processes of other packages may be
	// building or running the same binary at the same time.
	tmp := fmt.Sprintf("%s.tmp-%d", out, os.Getpid())
	cmd := exec.Command("go", "build", "-o", tmp, pkg)
	cmd.Dir = RepoRoot(t)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", name, err, b)
	}
	if err := os.Rename(tmp, out); err != nil {
		t.Fatal(err)
	}
	built[pkg] = out
	return out
}

// Binaries returns the paths of the sidecar and controlplane binaries.
func Binaries(t testing.TB) (sidecar, controlplane string) {
	t.Helper()
	return Binary(t, "sidecar"), Binary(t, "controlplane")
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
	handedMu.Lock()
	defer handedMu.Unlock()
	// The kernel may give the same free port to two listens in a row once
	// the first is closed: a test asking for two addresses (two listeners)
	// would get one twice, and the Sidecar refuses that config. So an
	// address is never handed out twice in a process.
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		if !handed[addr] {
			handed[addr] = true
			return addr
		}
	}
	t.Fatal("no free address not handed out before in 100 tries")
	return ""
}

var (
	handedMu sync.Mutex
	handed   = map[string]bool{} // addresses FreeAddr returned
)

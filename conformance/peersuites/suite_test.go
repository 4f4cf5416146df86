package peersuites

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/ports"
)

// slowFactor and slowFloor: a test is slower through the Sidecar when it
// takes slowFactor times as long as directly and at least slowFloor more
// (a test of 1 ms that takes 12 ms is noise, not a difference).
const (
	slowFactor = 10
	slowFloor  = 2 * time.Second
)

// runTimeout bounds one run of one suite: a test still running then hangs.
const runTimeout = 5 * time.Minute

// suite is one driver's own test suite.
type suite struct {
	module string   // the module path as go.mod requires it
	pkgs   []string // its packages to run, relative (./pgconn)
	// skip: top-level tests left out of both runs, each with its reason.
	skip map[string]string
	// env returns the suite's environment for one run against addr
	// (host:port) and database db.
	env func(addr, db string) []string
}

// result is how one test ended in one run.
type result struct {
	action  string // pass, fail, skip; "" for a test that started and never ended
	elapsed time.Duration
}

// moduleCopy copies the module dir of s.module (the version go.mod pins,
// from the module cache) to a writable temporary directory.
func moduleCopy(t *testing.T, module string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go list -m %s: %v (is it in go.mod and the module cache? go mod download %s)", module, err, module)
	}
	src := strings.TrimSpace(string(out))
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("copy %s: %v: %s", src, err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", dst).CombinedOutput(); err != nil {
		t.Fatalf("chmod %s: %v: %s", dst, err, out)
	}
	return dst
}

// skipPattern is s.skip as one -skip argument. go test -skip reads '/'
// as a level separator and '|' within one level only, so the lists name
// top-level tests (a subtest is left out with its parent).
func (s suite) skipPattern() string {
	var ps []string
	for p := range s.skip {
		ps = append(ps, "^"+regexp.QuoteMeta(p)+"$")
	}
	sort.Strings(ps)
	return strings.Join(ps, "|")
}

// run runs s's packages in dir with env and returns each test's result
// (key: package test), and the output of the tests that did not pass.
func (s suite) run(t *testing.T, dir string, env []string) (map[string]result, map[string]string) {
	t.Helper()
	args := []string{"test", "-json", "-count=1", "-trimpath", "-p", "1", "-timeout", runTimeout.String()}
	if p := s.skipPattern(); p != "" {
		args = append(args, "-skip", p)
	}
	args = append(args, s.pkgs...)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout+5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"GOFLAGS=-mod=mod", "GOWORK=off"}, env...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	res, out := readEvents(stdout)
	err = cmd.Wait()
	if len(res) == 0 {
		t.Fatalf("go test in %s ran no test (%v): %s", dir, err, stderr.String())
	}
	return res, out
}

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// readEvents reads go test -json output: each test's final action and
// elapsed time, and each test's output.
func readEvents(r io.Reader) (map[string]result, map[string]string) {
	res := map[string]result{}
	out := map[string]*strings.Builder{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" {
			continue
		}
		k := e.Package + " " + e.Test
		switch e.Action {
		case "run":
			res[k] = result{}
		case "pass", "fail", "skip":
			res[k] = result{action: e.Action, elapsed: time.Duration(e.Elapsed * float64(time.Second))}
		case "output":
			if out[k] == nil {
				out[k] = &strings.Builder{}
			}
			if out[k].Len() < 4<<10 {
				out[k].WriteString(e.Output)
			}
		}
	}
	outs := map[string]string{}
	for k, b := range out {
		if r := res[k]; r.action != "pass" && r.action != "skip" {
			outs[k] = b.String()
		}
	}
	return res, outs
}

// differences lists the tests that pass directly and fail or hang through
// the Sidecar, and apart (slow) those that run slowFactor times slower,
// each sorted, each with why.
func differences(direct, through map[string]result, out map[string]string) (d, slow []string) {
	for k, r := range direct {
		if r.action != "pass" {
			continue
		}
		tr, ok := through[k]
		switch {
		case !ok && strings.Contains(k, "/"):
			// a subtest named after something of its run (a temporary
			// path): its parent is compared.
		case !ok:
			d = append(d, k+": passes directly, did not run through the Sidecar (an earlier test hung?)")
		case tr.action == "":
			d = append(d, k+": passes directly, hangs through the Sidecar (never ended)")
		case tr.action == "fail":
			d = append(d, k+": passes directly, fails through the Sidecar:\n"+indent(out[k]))
		case tr.action == "pass" && tr.elapsed > slowFactor*r.elapsed && tr.elapsed-r.elapsed >= slowFloor:
			slow = append(slow, fmt.Sprintf("%s: %v directly, %v through the Sidecar (over %dx)", k, r.elapsed, tr.elapsed, slowFactor))
		}
	}
	sort.Strings(d)
	sort.Strings(slow)
	return d, slow
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "\t(no output)"
	}
	return "\t" + strings.ReplaceAll(s, "\n", "\n\t")
}

// serveListener serves protocol p in-process in front of upstream
// (host:port): return mode, one approval rule on DROP_DATABASE, the
// in-memory Control Plane fake. It returns the listener's address.
func serveListener(t *testing.T, protocol string, p app.Protocol, upstream string) string {
	t.Helper()
	set := app.ListenerSettings{Name: "peers-" + protocol, Protocol: protocol, Upstream: upstream, Mode: app.ModeReturn,
		SpendOn: ports.SpendOnSent, WaitTimeout: time.Minute,
		Approvals: []domain.ApprovalRule{{Name: "drop-database", Match: domain.Match{Actions: []string{"DROP_DATABASE"}}}}}
	if err := set.Approvals[0].Match.Compile(); err != nil {
		t.Fatal(err)
	}
	l := listenertest.NewCore(fakecp.New(nil), app.Limits{}).Listener(set)
	return listenertest.Serve(t, p, l)
}

// quietLog is the listeners' logger: warnings only, to the test log.
func quietLog(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// compare runs s directly against upstream (database directDB) and through
// the listener at through (database throughDB) at the same time, each in
// its own copy of the module, and fails t for every difference.
func compare(t *testing.T, s suite, upstream, directDB, through, throughDB string) {
	t.Helper()
	dirs := []string{moduleCopy(t, s.module), moduleCopy(t, s.module)}
	var direct, via map[string]result
	var viaOut map[string]string
	var wg sync.WaitGroup
	wg.Go(func() { direct, _ = s.run(t, dirs[0], s.env(upstream, directDB)) })
	wg.Go(func() { via, viaOut = s.run(t, dirs[1], s.env(through, throughDB)) })
	wg.Wait()
	if t.Failed() {
		return
	}
	passed := 0
	for _, r := range direct {
		if r.action == "pass" {
			passed++
		}
	}
	t.Logf("%s: %d tests ran directly, %d passed; %d ran through the Sidecar", s.module, len(direct), passed, len(via))
	if passed == 0 {
		t.Fatalf("%s: no test passed directly: the upstream is not set up for the suite", s.module)
	}
	diffs, slow := differences(direct, via, viaOut)
	for _, d := range diffs {
		t.Error(d)
	}
	for _, s := range slow {
		t.Log("slower through the Sidecar in this run (not a failure): " + s)
	}
}

// dbName returns a database name peers_<kind>_<random>.
func dbName(kind string) string {
	b := make([]byte, 4)
	rand.Read(b)
	return "peers_" + kind + "_" + hex.EncodeToString(b)
}

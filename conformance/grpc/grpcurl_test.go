package grpcconformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// grpcurlPath returns grpcurl from the repository's .tools/bin (make deps
// installs it there) or from PATH, and fails the test naming make deps when
// neither has it.
func grpcurlPath(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	local := filepath.Join(filepath.Dir(file), "..", "..", ".tools", "bin", "grpcurl")
	if fi, err := os.Stat(local); err == nil && !fi.IsDir() {
		return local
	}
	if p, err := exec.LookPath("grpcurl"); err == nil {
		return p
	}
	t.Fatalf("grpcurl not found in .tools/bin or on PATH: `make deps` installs it (go install github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.3)")
	return ""
}

// grpcurl runs grpcurl with args and returns its combined output and exit code.
func grpcurl(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(grpcurlPath(t), args...)
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("grpcurl %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	t.Logf("$ grpcurl %s\n%s", strings.Join(args, " "), out)
	return string(out), code
}

// grpcurl lists services through reflection and calls a unary method that no
// rule holds.
func TestGrpcurlListAndUnaryPass(t *testing.T) {
	w := newWorld(t)
	// Only Probe is held: reflection passes through.
	addr := w.listen(t, listener{Name: "probe", Rules: []rule{{Name: "uploads", Targets: []string{"/hoop.probe.v1.Probe/Upload"}}}})

	out, code := grpcurl(t, "-plaintext", addr, "list")
	for _, svc := range []string{"hoop.probe.v1.Probe", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection"} {
		if code != 0 || !strings.Contains(out, svc+"\n") {
			t.Errorf("list (exit %d) lacks %s", code, svc)
		}
	}
	out, code = grpcurl(t, "-plaintext", addr, "describe", "hoop.probe.v1.Probe.Unary")
	if code != 0 || !strings.Contains(out, "rpc Unary ( .hoop.probe.v1.Item ) returns ( .hoop.probe.v1.Reply );") {
		t.Errorf("describe (exit %d)", code)
	}
	out, code = grpcurl(t, "-plaintext", "-d", `{"name":"alice","amount":3}`, addr, "hoop.probe.v1.Probe/Unary")
	if code != 0 || !strings.Contains(out, `"text": "hello alice"`) || !strings.Contains(out, `"count": "3"`) {
		t.Errorf("unary call (exit %d)", code)
	}
	if n := w.up.Count("Unary"); n != 1 {
		t.Errorf("upstream saw %d Unary calls, want 1", n)
	}
}

var trailerLine = regexp.MustCompile(`(?m)^([a-z-]+): (.*)$`)

// A held call: grpcurl prints PermissionDenied with the spec's message, -v
// shows the trailers, and the approved identical resend runs once.
func TestGrpcurlHeldCall(t *testing.T) {
	w := newWorld(t)
	addr := w.listen(t, listener{Name: "probe", Rules: []rule{probeAll}})
	call := func(extra ...string) (string, int) {
		args := append([]string{"-plaintext", "-H", "x-hoop-approval: return"}, extra...)
		args = append(args, "-d", `{"name":"carol","amount":9}`, addr, "hoop.probe.v1.Probe/Unary")
		return grpcurl(t, args...)
	}

	out, code := call()
	recs := w.reviews(t)
	if len(recs) != 1 {
		t.Fatalf("%d approval requests filed, want 1", len(recs))
	}
	id := recs[0].ID
	want := "ERROR:\n  Code: PermissionDenied\n  Message: " + pendingMessage(id) + "\n"
	if code == 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, output lacks\n%s", code, want)
	}

	out, _ = call("-v")
	_, trailers, ok := strings.Cut(out, "Response trailers received:\n")
	if !ok {
		t.Fatalf("-v printed no trailers")
	}
	got := map[string]string{}
	for _, m := range trailerLine.FindAllStringSubmatch(trailers, -1) {
		got[m[1]] = m[2]
	}
	for k, v := range map[string]string{"x-hoop-denied": "review", "x-hoop-approval-id": id, "x-hoop-approval-status": "PENDING",
		"x-hoop-review-id": id, "x-hoop-review-status": "PENDING", "retry-after": "5"} {
		if got[k] != v {
			t.Errorf("trailer %s = %q, want %q", k, got[k], v)
		}
	}
	if n := w.up.Count("Unary"); n != 0 {
		t.Fatalf("held call reached the upstream %d times", n)
	}

	w.approve(t, id)
	out, code = call()
	if code != 0 || !strings.Contains(out, `"text": "hello carol"`) {
		t.Errorf("approved resend (exit %d)", code)
	}
	if n := w.up.Count("Unary"); n != 1 {
		t.Errorf("approved resend reached the upstream %d times, want 1", n)
	}
}

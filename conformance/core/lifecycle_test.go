package core

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// slowUpstream answers every request after delay, counting the requests it
// has begun (so a test knows when one is in flight).
func slowUpstream(t *testing.T, delay time.Duration) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var begun atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		begun.Add(1)
		if r.URL.Path == "/slow" {
			select {
			case <-time.After(delay):
			case <-r.Context().Done(): // the Sidecar cut the request
				return
			}
		}
		_, _ = io.WriteString(w, "done "+r.URL.Path)
	}))
	t.Cleanup(up.Close)
	return up, &begun
}

func waitCount(t *testing.T, c *atomic.Int64, n int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); c.Load() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the upstream saw %d requests, want %d", c.Load(), n)
		}
	}
}

// curl runs curl against url in the background and returns a channel with
// its status code line and exit error.
func curl(t *testing.T, args ...string) <-chan string {
	t.Helper()
	out := make(chan string, 1)
	cmd := exec.Command("curl", append([]string{"-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "30"}, args...)...)
	go func() {
		b, err := cmd.Output()
		out <- fmt.Sprintf("%s %v", b, err)
	}()
	return out
}

// sigtermWithRequestInFlight starts a Sidecar (shutdown_grace grace) with an
// http listener in front of an upstream that answers after delay, starts a
// curl of it, and sends SIGTERM once the upstream has the request. It
// returns the Sidecar, the listener's address and curl's status code (when
// curl ends).
func sigtermWithRequestInFlight(t *testing.T, delay time.Duration, grace string) (sc *harness.Sidecar, listen string, res <-chan string) {
	t.Helper()
	up, begun := slowUpstream(t, delay)
	listen = harness.FreeAddr(t)
	sc = harness.StartSidecar(t, harness.SidecarOptions{Config: fmt.Sprintf(`
sidecar: test
shutdown_grace: %s
listeners:
  - {name: api, protocol: http, listen: %s, upstream: %s}
`, grace, listen, up.URL)})
	res = curl(t, "http://"+listen+"/slow")
	waitCount(t, begun, 1)
	if err := sc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	return sc, listen, res
}

// A slow request in flight when the Sidecar gets SIGTERM completes with 200
// for curl, and the process then exits 0 within its shutdown_grace.
func TestSIGTERMLetsARequestInFlightFinish(t *testing.T) {
	sc, listen, res := sigtermWithRequestInFlight(t, 1500*time.Millisecond, "10s")
	if got := <-res; got != "200 <nil>" {
		t.Fatalf("curl across SIGTERM: %q, want 200 and exit 0", got)
	}
	code, err := sc.Wait(10 * time.Second)
	if err != nil || code != 0 {
		t.Fatalf("sidecar exit %d %v, want 0 within the grace", code, err)
	}
	// New connections were refused during the drain.
	if c, err := net.DialTimeout("tcp", listen, time.Second); err == nil {
		c.Close()
		t.Fatal("the listener still accepts after the Sidecar exited")
	}
}

// spend_approval_on: accepted: an approved statement in flight across
// SIGTERM completes, and its approval ends EXECUTED, never PROCESSING.
func TestSIGTERMSettlesAnAcceptedApproval(t *testing.T) {
	up, begun := slowUpstream(t, 1500*time.Millisecond)
	cp := harness.StartControlPlane(t, harness.CPOptions{})
	listen := harness.FreeAddr(t)
	sc := harness.StartSidecar(t, harness.SidecarOptions{Token: cp.Sidecars["test"], Config: fmt.Sprintf(`
sidecar: test
shutdown_grace: 10s
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN}
approval_rules:
  - {name: deletes, match: {actions: [DELETE]}}
listeners:
  - {name: api, protocol: http, listen: %s, upstream: %s, mode: return, spend_approval_on: accepted, approval_rules: [deletes]}
`, cp.URL, listen, up.URL)})
	req, _ := http.NewRequest(http.MethodDelete, "http://"+listen+"/slow", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("X-Hoop-Approval-Id")
	if resp.StatusCode != http.StatusForbidden || id == "" {
		t.Fatalf("first DELETE: %d %q", resp.StatusCode, id)
	}
	cp.Approve(t, id)
	res := curl(t, "-X", "DELETE", "http://"+listen+"/slow")
	waitCount(t, begun, 1)
	if st := cp.Review(t, id).Status; st != "PROCESSING" {
		t.Fatalf("while the approved DELETE runs: %s, want PROCESSING", st)
	}
	if err := sc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if got := <-res; got != "200 <nil>" {
		t.Fatalf("approved DELETE across SIGTERM: %q, want 200", got)
	}
	if code, err := sc.Wait(10 * time.Second); err != nil || code != 0 {
		t.Fatalf("sidecar exit %d %v", code, err)
	}
	if st := cp.Review(t, id).Status; st != "EXECUTED" {
		t.Fatalf("approval after the shutdown: %s, want EXECUTED", st)
	}
}

// A wait-mode client still waiting for a person at SIGTERM gets the
// protocol's own error at once: http 503 naming the approval, PostgreSQL
// FATAL 57P01 (psql); the approval stays PENDING.
func TestSIGTERMEndsWaitsWithANativeError(t *testing.T) {
	up, _ := slowUpstream(t, 0)
	cp := harness.StartControlPlane(t, harness.CPOptions{})
	httpAddr, pgAddr := harness.FreeAddr(t), harness.FreeAddr(t)
	db := harness.FreshDatabase(t)
	pgUp := strings.TrimPrefix(db, "postgres://")
	pgUp = pgUp[strings.Index(pgUp, "@")+1:]
	pgUp = pgUp[:strings.Index(pgUp, "/")]
	dbName := db[strings.LastIndex(db, "/")+1:]
	dbName, _, _ = strings.Cut(dbName, "?")
	sc := harness.StartSidecar(t, harness.SidecarOptions{Token: cp.Sidecars["test"], Config: fmt.Sprintf(`
sidecar: test
shutdown_grace: 10s
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN}
approval_rules:
  - {name: deletes, match: {actions: [DELETE]}}
listeners:
  - {name: api, protocol: http, listen: %s, upstream: %s, mode: wait, approval_rules: [deletes]}
  - {name: db, protocol: postgres, listen: %s, upstream: %s, mode: wait, approval_rules: [deletes]}
`, cp.URL, httpAddr, up.URL, pgAddr, pgUp)})

	type answer struct {
		code int
		id   string
		err  error
	}
	httpRes := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodDelete, "http://"+httpAddr+"/v1/x", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			httpRes <- answer{err: err}
			return
		}
		resp.Body.Close()
		httpRes <- answer{code: resp.StatusCode, id: resp.Header.Get("X-Hoop-Approval-Id")}
	}()
	host, port, _ := net.SplitHostPort(pgAddr)
	psql := exec.Command("psql", "-X", "-h", host, "-p", port, "-U", "postgres", "-d", dbName, "-c", "DELETE FROM pg_catalog.pg_class WHERE false")
	psql.Env = append(psql.Environ(), "PGSSLMODE=disable", "PGCONNECT_TIMEOUT=5")
	pgRes := make(chan string, 1)
	go func() {
		b, err := psql.CombinedOutput()
		pgRes <- fmt.Sprintf("%s (%v)", b, err)
	}()
	for deadline := time.Now().Add(15 * time.Second); len(cp.Reviews(t)) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			select {
			case out := <-pgRes:
				t.Fatalf("psql ended before its statement was filed: %s", out)
			default:
			}
			t.Fatalf("both statements were not filed: %+v", cp.Reviews(t))
		}
	}
	if err := sc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-httpRes:
		if a.err != nil || a.code != http.StatusServiceUnavailable || a.id == "" {
			t.Fatalf("http wait at SIGTERM: %+v, want 503 naming the approval", a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the http wait did not end at SIGTERM")
	}
	select {
	case out := <-pgRes:
		if !strings.Contains(out, "FATAL:  terminating connection due to administrator command") {
			t.Fatalf("psql wait at SIGTERM printed %q, want FATAL 57P01", out)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the postgres wait did not end at SIGTERM")
	}
	if code, err := sc.Wait(10 * time.Second); err != nil || code != 0 {
		t.Fatalf("sidecar exit %d %v", code, err)
	}
	for _, r := range cp.Reviews(t) {
		if r.Status != "PENDING" {
			t.Errorf("approval %s is %s after the shutdown, want PENDING (left as the person will decide)", r.ID, r.Status)
		}
	}
}

// A reload that swaps two listeners' addresses applies: each address now
// serves the other listener's upstream.
func TestReloadSwapsAddresses(t *testing.T) {
	upA, _ := slowUpstream(t, 0)
	upB := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "B") }))
	defer upB.Close()
	x, y := harness.FreeAddr(t), harness.FreeAddr(t)
	cfg := func(ax, bx string) string {
		return fmt.Sprintf(`
sidecar: test
listeners:
  - {name: a, protocol: http, listen: %s, upstream: %s}
  - {name: b, protocol: http, listen: %s, upstream: %s}
`, ax, upA.URL, bx, upB.URL)
	}
	sc := harness.StartSidecar(t, harness.SidecarOptions{Config: cfg(x, y)})
	get := func(addr string) string {
		resp, err := http.Get("http://" + addr + "/p")
		if err != nil {
			t.Fatalf("GET %s: %v", addr, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if get(x) != "done /p" || get(y) != "B" {
		t.Fatal("before the swap the listeners answer wrongly")
	}
	sc.Reload(t, cfg(y, x))
	if !strings.Contains(sc.Output(), "reloaded listeners") {
		t.Fatalf("the swap was not applied:\n%s", sc.Output())
	}
	if gx, gy := get(x), get(y); gx != "B" || gy != "done /p" {
		t.Fatalf("after the swap %s answers %q and %s %q; want them swapped", x, gx, y, gy)
	}
}

// A reload that names a listener certificate that does not load is refused
// and reported; the listener keeps serving as before and /readyz stays 200.
func TestReloadWithABadCertificateIsRefused(t *testing.T) {
	up, _ := slowUpstream(t, 0)
	listen, admin := harness.FreeAddr(t), harness.FreeAddr(t)
	cfg := func(tls string) string {
		return fmt.Sprintf(`
sidecar: test
admin: {listen: %s}
listeners:
  - {name: api, protocol: http, listen: %s, upstream: %s%s}
`, admin, listen, up.URL, tls)
	}
	sc := harness.StartSidecar(t, harness.SidecarOptions{Config: cfg("")})
	missing := filepath.Join(t.TempDir(), "nope.crt")
	sc.Reload(t, cfg(fmt.Sprintf(", tls: {cert_file: %s, key_file: %s}", missing, missing)))
	out := sc.Output()
	if !strings.Contains(out, "reload refused") || !strings.Contains(out, "listener api: listener tls: load "+missing) {
		t.Fatalf("the reload with a bad certificate was not refused and reported:\n%s", out)
	}
	resp, err := http.Get("http://" + listen + "/p")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after the refused reload the listener answers %v %v, want 200 in plaintext", resp, err)
	}
	resp.Body.Close()
	if code, body := adminGet(t, admin, "/readyz"); code != 200 {
		t.Fatalf("/readyz after a refused reload: %d %s", code, body)
	}
}

// A reload that removes a listener leaves /readyz 200; the removed
// listener stops accepting at once, and a connection with a request in
// flight is closed at the drain deadline (shutdown_grace), not kept forever.
func TestRemovedListenerDrainsWithADeadline(t *testing.T) {
	up, begun := slowUpstream(t, 20*time.Second)
	keep, gone, admin := harness.FreeAddr(t), harness.FreeAddr(t), harness.FreeAddr(t)
	cfg := func(extra string) string {
		return fmt.Sprintf(`
sidecar: test
shutdown_grace: 1s
admin: {listen: %s}
listeners:
  - {name: keep, protocol: http, listen: %s, upstream: %s}
%s`, admin, keep, up.URL, extra)
	}
	sc := harness.StartSidecar(t, harness.SidecarOptions{Config: cfg(fmt.Sprintf("  - {name: gone, protocol: http, listen: %s, upstream: %s}\n", gone, up.URL))})
	conn, err := net.Dial("tcp", gone)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	waitCount(t, begun, 1)
	sc.Reload(t, cfg(""))
	if code, body := adminGet(t, admin, "/readyz"); code != 200 {
		t.Fatalf("/readyz after removing a listener: %d %s", code, body)
	}
	if c, err := net.DialTimeout("tcp", gone, time.Second); err == nil {
		c.Close()
		t.Fatal("the removed listener still accepts")
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = bufio.NewReader(conn).ReadString('\n')
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the removed listener's connection was still open 10 s after its 1 s drain deadline")
	}
	if err == nil {
		t.Fatal("the in-flight request got an answer; the upstream takes 20 s, so the deadline should have closed it")
	}
	sc.WaitFor(t, `msg="listener drained" listener=gone`, 5*time.Second)
}

// A postgres listener whose certificate does not load refuses to start:
// the port is never bound, so no client is ever answered 'N' to an
// SSLRequest and left to go on in plaintext.
func TestPostgresWithABadCertificateRefusesToStart(t *testing.T) {
	listen := harness.FreeAddr(t)
	missing := filepath.Join(t.TempDir(), "nope.crt")
	sc := harness.StartSidecar(t, harness.SidecarOptions{NoWait: true, Config: fmt.Sprintf(`
sidecar: test
listeners:
  - {name: db, protocol: postgres, listen: %s, upstream: 127.0.0.1:5432, tls: {cert_file: %s, key_file: %s}}
`, listen, missing, missing)})
	code, err := sc.Wait(20 * time.Second)
	if err != nil || code == 0 {
		t.Fatalf("sidecar with a bad certificate: exit %d %v, want a refusal\n%s", code, err, sc.Output())
	}
	if out := sc.Output(); !strings.Contains(out, "listener db: listener tls: load "+missing) || strings.Contains(out, "sidecar ready") {
		t.Fatalf("the refusal does not name the listener and file:\n%s", out)
	}
	if c, err := net.DialTimeout("tcp", listen, time.Second); err == nil {
		c.Close()
		t.Fatal("the address is bound although the Sidecar refused to start")
	}
}

func adminGet(t *testing.T, admin, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + admin + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A second SIGTERM during the drain exits at once, with status 1.
func TestSecondSIGTERMExitsAtOnce(t *testing.T) {
	sc, _, res := sigtermWithRequestInFlight(t, 20*time.Second, "20s")
	sc.WaitFor(t, "stopping: listeners drain", 5*time.Second)
	if err := sc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, err := sc.Wait(5 * time.Second); err != nil || code != 1 {
		t.Fatalf("after a second SIGTERM: exit %d %v, want 1 at once", code, err)
	}
	<-res
}

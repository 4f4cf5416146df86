package container

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/hoophq/sidecar/conformance/harness"
)

const (
	sidecarToken  = "container-sidecar-token"
	approverToken = "container-approver-token"
	grace         = 3 // shutdown_grace of the Sidecar under test, seconds
)

var approvalRE = regexp.MustCompile(`\(approval ([0-9a-f-]{36})\)`)

// The image's whole loop: the Control Plane and the Sidecar as containers
// (config files mounted, the Sidecar token from the environment, JSON logs);
// psql (application_name "… hoop-approval=return") and curl
// (X-Hoop-Approval: return) are denied with an approval id, the CLI inside
// the Control Plane's container approves, the identical resend runs once.
// Then SIGTERM: the Sidecar exits by itself (code 0) before Docker's
// SIGKILL at shutdown_grace + 4 s, and every line it printed is JSON.
func TestContainerReturnModeLoopAndSIGTERM(t *testing.T) {
	img := image(t)
	for _, c := range []string{"psql", "curl"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Fatalf("%s is not installed (make deps installs it)", c)
		}
	}

	// Control Plane container.
	cpAddr := harness.FreeAddr(t)
	cpCfg := writeFile(t, "controlplane.yaml", fmt.Sprintf(`listen: %s
store: sqlite:/tmp/controlplane.db
sidecars:
  - {name: boxed, token: %s}
approvers:
  - {name: tester, token: %s}
`, cpAddr, sidecarToken, approverToken))
	cp := run(t, img, map[string]string{cpCfg: "/etc/hoop/controlplane.yaml"}, nil,
		[]string{"/usr/local/bin/controlplane"}, "serve", "--config", "/etc/hoop/controlplane.yaml")
	waitHTTP(t, "http://"+cpAddr+"/healthz", cp)

	// Upstreams: a fresh database on the suite's PostgreSQL, and an HTTP
	// server in this process that counts what reaches it.
	dbURL := harness.FreshDatabase(t)
	db, _ := url.Parse(dbURL)
	var deletes atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			deletes.Add(1)
		}
		fmt.Fprintf(w, "upstream ok %s %s", r.Method, r.URL.Path)
	}))
	t.Cleanup(up.Close)

	pgAddr, httpAddr, adminAddr := harness.FreeAddr(t), harness.FreeAddr(t), harness.FreeAddr(t)
	scCfg := writeFile(t, "config.yaml", fmt.Sprintf(`sidecar: boxed
control_plane: {url: http://%s, token_env: HOOP_SIDECAR_TOKEN, timeout: 5s}
log: {format: json, level: info}
admin: {listen: %s}
shutdown_grace: %ds
approval_rules:
  - name: db-destructive
    match: {actions: [DROP, TRUNCATE, DELETE]}
  - name: api-deletes
    match: {actions: [DELETE]}
listeners:
  - {name: pg, protocol: postgres, listen: %s, upstream: %s, mode: wait, approval_rules: [db-destructive]}
  - {name: api, protocol: http, listen: %s, upstream: %s, mode: wait, approval_rules: [api-deletes]}
`, cpAddr, adminAddr, grace, pgAddr, db.Host, httpAddr, up.URL))
	// The image's default command: run --config /etc/hoop/config.yaml.
	sc := run(t, img, map[string]string{scCfg: "/etc/hoop/config.yaml"},
		map[string]string{"HOOP_SIDECAR_TOKEN": sidecarToken}, nil)
	waitHTTP(t, "http://"+adminAddr+"/readyz", sc)

	approve := func(id string) {
		t.Helper()
		code, out := execIn(t, cp, []string{"HOOP_CONTROLPLANE_URL=http://" + cpAddr, "HOOP_APPROVER_TOKEN=" + approverToken},
			"/usr/local/bin/controlplane", "approve", id)
		if code != 0 {
			t.Fatalf("controlplane approve %s in the container: exit %d\n%s", id, code, out)
		}
	}

	// psql through the containerised Sidecar.
	direct(t, dbURL, "CREATE TABLE boxed (id int)")
	out := psql(t, pgAddr, db, "DROP TABLE boxed;\nSELECT 1 AS alive;\n")
	ids := approvalRE.FindStringSubmatch(out)
	if ids == nil || !strings.Contains(out, "ERROR:  statement held for human approval: waiting for approval; resend the identical statement once it is approved") {
		t.Fatalf("psql was not denied with the spec's text:\n%s", out)
	}
	if !strings.Contains(out, "(1 row)") {
		t.Fatalf("the session did not stay open after the denial:\n%s", out)
	}
	approve(ids[1])
	out = psql(t, pgAddr, db, "DROP TABLE boxed;\n")
	if !strings.Contains(out, "DROP TABLE") || strings.Contains(out, "ERROR") {
		t.Fatalf("the approved resend did not run:\n%s", out)
	}
	if n := count(t, dbURL, "SELECT count(*) FROM pg_tables WHERE tablename = 'boxed'"); n != 0 {
		t.Fatal("table boxed is still there after the approved DROP")
	}

	// curl through the containerised Sidecar.
	target := "http://" + httpAddr + "/v1/invoices/7"
	code, hdr, body := curl(t, "-X", "DELETE", "-H", "X-Hoop-Approval: return", target)
	id := hdr.Get("X-Hoop-Approval-Id")
	if code != 403 || id == "" || hdr.Get("X-Hoop-Approval-Status") != "PENDING" {
		t.Fatalf("curl DELETE: %d %v %q, want 403 PENDING with an approval id", code, hdr, body)
	}
	if deletes.Load() != 0 {
		t.Fatal("the held DELETE reached the upstream")
	}
	approve(id)
	code, _, body = curl(t, "-X", "DELETE", "-H", "X-Hoop-Approval: return", target)
	if code != 200 || body != "upstream ok DELETE /v1/invoices/7" {
		t.Fatalf("approved resend: %d %q", code, body)
	}
	if n := deletes.Load(); n != 1 {
		t.Fatalf("the DELETE reached the upstream %d times, want 1", n)
	}

	// SIGTERM (docker stop) with Docker's SIGKILL at shutdown_grace + 4 s:
	// exit code 0 means the Sidecar stopped by itself within that.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	timeout := time.Duration(grace+4) * time.Second
	if err := sc.Stop(ctx, &timeout); err != nil {
		t.Fatalf("docker stop: %v", err)
	}
	st, err := sc.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Running || st.ExitCode != 0 || st.OOMKilled {
		t.Fatalf("after SIGTERM: running=%v exit code %d (137: Docker had to SIGKILL it after %s)\n%s", st.Running, st.ExitCode, timeout, logs(sc))
	}
	checkJSONLines(t, logs(sc), "sidecar ready", "stopping: listeners drain")
}

// checkJSONLines checks that every line is a JSON object with time, level
// and msg, and that the messages include each of want.
func checkJSONLines(t *testing.T, all string, want ...string) {
	t.Helper()
	msgs := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(all))
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		n++
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("log line is not JSON (log.format: json): %q", line)
			continue
		}
		for _, k := range []string{"time", "level", "msg"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("log line without %q: %s", k, line)
			}
		}
		if m, ok := rec["msg"].(string); ok {
			msgs[m] = true
		}
	}
	if n == 0 {
		t.Fatal("the Sidecar container printed nothing")
	}
	for _, w := range want {
		if !msgs[w] {
			t.Errorf("no log line %q among %d lines:\n%s", w, n, all)
		}
	}
}

// waitHTTP waits until url answers 200, or fails with the container's logs.
func waitHTTP(t *testing.T, url string, c *testcontainers.DockerContainer) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s did not answer 200 within 60 s; container logs:\n%s", url, logs(c))
}

func psql(t *testing.T, addr string, db *url.URL, input string) string {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	conninfo := fmt.Sprintf("host=%s port=%s user=postgres dbname=%s sslmode=disable application_name='agent hoop-approval=return'",
		host, port, strings.TrimPrefix(db.Path, "/"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "psql", "-X", "-v", "ON_ERROR_STOP=0", conninfo)
	cmd.Stdin = strings.NewReader(input)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// curl runs the real curl and returns the status, headers and body.
func curl(t *testing.T, args ...string) (int, http.Header, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "curl", append([]string{"-sS", "-i", "--max-time", "30"}, args...)...).Output()
	if err != nil {
		t.Fatalf("curl %v: %v\n%s", args, err, out)
	}
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(string(out))), nil)
	if err != nil {
		t.Fatalf("curl printed no HTTP response: %v\n%s", err, out)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

package main_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// pgSidecar runs the sidecar binary with a postgres and an http listener in
// return mode whose rule holds DELETE, an admin address, and extra config
// lines (e.g. an mcp block). It returns the process, the postgres listener's
// address, the admin address and the http listener's address.
func pgSidecar(t *testing.T, cp *harness.ControlPlane, token, extra string) (*harness.Sidecar, string, string, string) {
	t.Helper()
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatal("psql is not installed (make deps installs postgresql-client)")
	}
	u, err := url.Parse(harness.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	upstream := u.Host
	if u.Port() == "" {
		upstream = net.JoinHostPort(u.Hostname(), "5432")
	}
	listen, admin, web := harness.FreeAddr(t), harness.FreeAddr(t), harness.FreeAddr(t)
	s := harness.StartSidecar(t, harness.SidecarOptions{Token: token, Config: fmt.Sprintf(`sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN, timeout: 2s}
admin: {listen: %s}
%s
approval_rules: [{name: destructive, match: {actions: [DELETE]}}]
listeners:
  - {name: pg, protocol: postgres, listen: %s, upstream: %s, mode: return, approval_rules: [destructive]}
  - {name: web, protocol: http, listen: %s, upstream: "http://127.0.0.1:1", mode: return, approval_rules: [destructive]}
`, cp.URL, admin, extra, listen, upstream, web)})
	return s, listen, admin, web
}

// curlDelete sends DELETE /v1/x with the real curl and returns the status
// line and body it printed.
func curlDelete(t *testing.T, addr string) string {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("curl is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "curl", "-sS", "-X", "DELETE", "-w", "\nstatus %{http_code}\n", "http://"+addr+"/v1/x").CombinedOutput()
	if err != nil {
		t.Fatalf("curl: %v\n%s", err, out)
	}
	return string(out)
}

// psql runs the real psql against the listener and returns what it printed.
func psql(t *testing.T, addr, sql string) string {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "psql", "-X", "-v", "ON_ERROR_STOP=0",
		fmt.Sprintf("host=%s port=%s user=postgres dbname=postgres sslmode=disable", host, port), "-c", sql).CombinedOutput()
	return string(out)
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A Sidecar whose token the Control Plane refuses says so: in the startup
// log, in /readyz (503 with that reason) and in the denial an agent reads,
// which names neither the token nor the Control Plane's address. Statements
// that need no approval keep flowing.
func TestRefusedSidecarTokenIsSaidEverywhere(t *testing.T) {
	cp := harness.StartControlPlane(t, harness.CPOptions{Sidecars: map[string]string{"test": "the-right-token"}})
	s, listen, admin, web := pgSidecar(t, cp, "a-wrong-token", "")

	startup := s.Output()
	if !strings.Contains(startup, "the Control Plane refused the Sidecar token") ||
		!strings.Contains(startup, "token_from=\"environment variable HOOP_SIDECAR_TOKEN\"") ||
		strings.Contains(startup, "does not answer yet") || strings.Contains(startup, "a-wrong-token") {
		t.Errorf("the startup log should say the token was refused, and where it came from:\n%s", startup)
	}

	code, body := get(t, "http://"+admin+"/readyz")
	if code != http.StatusServiceUnavailable || !strings.HasPrefix(body, "the Control Plane refused the Sidecar token") {
		t.Errorf("/readyz = %d %q, want 503 naming the refused token", code, body)
	}

	out := psql(t, listen, "DELETE FROM hoop_no_such_table")
	if !strings.Contains(out, "ERROR:  statement needs human approval (rule destructive) but the Control Plane refused the Sidecar token") {
		t.Errorf("psql should print the refused-token denial:\n%s", out)
	}
	for _, secret := range []string{"unreachable", "a-wrong-token", "the-right-token", cp.URL, strings.TrimPrefix(cp.URL, "http://")} {
		if strings.Contains(out, secret) {
			t.Errorf("the denial must not contain %q:\n%s", secret, out)
		}
	}
	if out := curlDelete(t, web); !strings.Contains(out, "the Control Plane refused the Sidecar token") ||
		!strings.Contains(out, "status 403") || strings.Contains(out, "a-wrong-token") {
		t.Errorf("curl should get a 403 naming the refused token:\n%s", out)
	}
	if out := psql(t, listen, "SELECT 40 + 2 AS answer"); !strings.Contains(out, "42") {
		t.Errorf("a statement needing no approval should run:\n%s", out)
	}
}

// With an mcp block, a return-mode denial is the spec's MCP variant, which
// leads with the approval id and names approval_wait (app.CoreOptions.WithMCP
// set from the config in cmd/sidecar/run.go).
func TestMCPBlockGivesTheMCPDenialText(t *testing.T) {
	cp := harness.StartControlPlane(t, harness.CPOptions{Sidecars: map[string]string{"test": "the-right-token"}})
	_, listen, _, web := pgSidecar(t, cp, "the-right-token", "mcp: {listen: "+harness.FreeAddr(t)+"}")
	want := regexp.MustCompile(`approval [0-9a-f-]+: waiting for approval; call the MCP tool approval_wait with the approval id, ` +
		`then resend the identical statement once it is approved \(statement held for human approval\)`)
	if out := psql(t, listen, "DELETE FROM hoop_no_such_table"); !regexp.MustCompile("ERROR:  " + want.String()).MatchString(out) {
		t.Errorf("psql should print the spec's MCP denial text:\n%s", out)
	}
	if out := curlDelete(t, web); !want.MatchString(out) || !strings.Contains(out, "status 403") {
		t.Errorf("curl should get a 403 with the spec's MCP denial text:\n%s", out)
	}
}

// Without an mcp block the denial is the spec's plain text, which names no tool.
func TestNoMCPBlockGivesThePlainDenialText(t *testing.T) {
	cp := harness.StartControlPlane(t, harness.CPOptions{Sidecars: map[string]string{"test": "the-right-token"}})
	_, listen, _, _ := pgSidecar(t, cp, "the-right-token", "")
	out := psql(t, listen, "DELETE FROM hoop_no_such_table")
	want := regexp.MustCompile(`ERROR:  statement held for human approval: waiting for approval; resend the identical statement once it is approved \(approval [0-9a-f-]+\)`)
	if !want.MatchString(out) || strings.Contains(out, "approval_wait") {
		t.Fatalf("psql should print the spec's plain denial text:\n%s", out)
	}
}

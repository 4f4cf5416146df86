package core

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

func sidecarConfig(cpURL, admin, listen, upstream, rules string, extra string) string {
	return fmt.Sprintf(`
sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN}
admin: {listen: %s}
approval_rules:
  - {name: deletes, match: {actions: [DELETE]}}
listeners:
  - {name: api, protocol: http, listen: %s, upstream: %s, mode: return, approval_rules: [%s]}
%s`, cpURL, admin, listen, upstream, rules, extra)
}

// rawRequest writes one HTTP/1.1 request on conn and reads its response.
func rawRequest(t *testing.T, conn net.Conn, br *bufio.Reader, method, path string) *http.Response {
	t.Helper()
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: api\r\n\r\n", method, path)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("%s %s on the kept connection: %v", method, path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// SIGHUP swaps a running listener's rules without dropping its live
// connections, and binds a listener the new file adds.
func TestReloadAppliesRulesWithoutDroppingConnections(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer upstream.Close()
	cp := harness.StartControlPlane(t, harness.CPOptions{})
	admin, listen, second := harness.FreeAddr(t), harness.FreeAddr(t), harness.FreeAddr(t)
	// Before: the listener names no approval rule, so DELETE passes.
	before := strings.Replace(sidecarConfig(cp.URL, admin, listen, upstream.URL, "deletes", ""), "approval_rules: [deletes]}", "approval_rules: []}", 1)
	sc := harness.StartSidecar(t, harness.SidecarOptions{Token: cp.Sidecars["test"], Config: before})

	conn, err := net.Dial("tcp", listen)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	if resp := rawRequest(t, conn, br, "DELETE", "/v1/x"); resp.StatusCode != 200 {
		t.Fatalf("before reload DELETE: %d, want 200", resp.StatusCode)
	}

	after := sidecarConfig(cp.URL, admin, listen, upstream.URL, "deletes",
		fmt.Sprintf("  - {name: api2, protocol: http, listen: %s, upstream: %s}\n", second, upstream.URL))
	sc.Reload(t, after)

	// Same connection, new rules: the DELETE is now held.
	resp := rawRequest(t, conn, br, "DELETE", "/v1/x")
	if resp.StatusCode != 403 || resp.Header.Get("X-Hoop-Approval-Id") == "" {
		t.Fatalf("after reload DELETE on the live connection: %d %v, want 403 with an approval id", resp.StatusCode, resp.Header)
	}
	// The added listener is bound.
	r2, err := http.Get("http://" + second + "/ok")
	if err != nil || r2.StatusCode != 200 {
		t.Fatalf("listener added by reload: %v %v", err, r2)
	}
	r2.Body.Close()

	// An invalid file is refused and the running config stays.
	sc.Reload(t, "sidecar: test\nlisteners: [{name: broken}]\n")
	if !strings.Contains(sc.Output(), "reload refused") {
		t.Fatalf("an invalid reload was not refused:\n%s", sc.Output())
	}
	if resp := rawRequest(t, conn, br, "GET", "/v1/x"); resp.StatusCode != 200 {
		t.Fatalf("after a refused reload GET: %d, want 200", resp.StatusCode)
	}
}

// The admin address serves /healthz, /readyz (listeners bound and Control
// Plane answering) and Prometheus /metrics with the decisions counted.
func TestAdminEndpoints(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer upstream.Close()
	cp := harness.StartControlPlane(t, harness.CPOptions{})
	admin, listen := harness.FreeAddr(t), harness.FreeAddr(t)
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	harness.StartSidecar(t, harness.SidecarOptions{Token: cp.Sidecars["test"],
		Config: sidecarConfig(cp.URL, admin, listen, upstream.URL, "deletes", "audit: {file: "+auditPath+"}\n")})

	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + admin + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Fatalf("/healthz %d", code)
	}
	if code, body := get("/readyz"); code != 200 {
		t.Fatalf("/readyz %d %s", code, body)
	}
	req, _ := http.NewRequest("DELETE", "http://"+listen+"/v1/x", nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	if resp, err := http.Get("http://" + listen + "/v1/x"); err == nil {
		resp.Body.Close()
	}
	_, metrics := get("/metrics")
	for _, want := range []string{
		`hoop_sidecar_statements_total{decision="deny_approval",listener="api"} 1`,
		`hoop_sidecar_statements_total{decision="allow",listener="api"} 1`,
		`hoop_sidecar_approvals_filed_total{listener="api"} 1`,
		`hoop_sidecar_control_plane_request_seconds_count{call="file"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// Every decision is one JSON line in the audit file, never with the token.
	// The writer works off the statement's path (within 5 ms): wait for both.
	var auditLog []byte
	for until := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var err error
		if auditLog, err = os.ReadFile(auditPath); err != nil {
			t.Fatal(err)
		}
		if strings.Count(string(auditLog), "\n") >= 2 || time.Now().After(until) {
			break
		}
	}
	var decisions []string
	for _, line := range strings.Split(strings.TrimSpace(string(auditLog)), "\n") {
		var e struct {
			Decision, Listener, Fingerprint, ApprovalID string
		}
		if err := json.Unmarshal([]byte(line), &struct {
			Decision    *string `json:"decision"`
			Listener    *string `json:"listener"`
			Fingerprint *string `json:"fingerprint"`
			ApprovalID  *string `json:"approval_id"`
		}{&e.Decision, &e.Listener, &e.Fingerprint, &e.ApprovalID}); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if e.Decision == "deny_approval" && (e.ApprovalID == "" || e.Fingerprint == "") {
			t.Errorf("deny_approval audit line lacks approval id or fingerprint: %s", line)
		}
		decisions = append(decisions, e.Decision)
	}
	if !strings.Contains(string(auditLog), `"statement":"DELETE /v1/x`) {
		t.Errorf("the audit trail does not say which statement was held:\n%s", auditLog)
	}
	if strings.Join(decisions, ",") != "deny_approval,allow" || strings.Contains(string(auditLog), cp.Sidecars["test"]) {
		t.Fatalf("audit decisions %v (want deny_approval,allow, without the token):\n%s", decisions, auditLog)
	}
	// With the Control Plane gone, /readyz says so.
	cp.Stop()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := get("/readyz")
		if code == 503 && strings.Contains(body, "control plane") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz with the Control Plane stopped: %d %s", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

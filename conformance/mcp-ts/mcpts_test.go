// Package mcpts runs the official MCP TypeScript SDK client (script.mjs,
// @modelcontextprotocol/sdk pinned in package.json and package-lock.json)
// against the Sidecar's MCP server. It needs node and npm (Node 20);
// `npm ci` installs the pinned packages once.
package mcpts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// installDeps runs npm ci unless node_modules was installed after the last
// change of package-lock.json (the same check as scripts/deps.sh, so `make
// test` installs once).
func installDeps(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install Node 20 (make deps) to run the TypeScript SDK conformance", tool)
		}
	}
	lock, err := os.Stat("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if hidden, err := os.Stat("node_modules/.package-lock.json"); err == nil && !lock.ModTime().After(hidden.ModTime()) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}
}

type parsed struct {
	IsError bool           `json:"isError"`
	Text    string         `json:"text"`
	JSON    map[string]any `json:"json"`
}

type result struct {
	ProtocolVersion string   `json:"protocolVersion"`
	Tools           []string `json:"tools"`
	Status          parsed   `json:"status"`
	Wait            struct {
		parsed
		Progress  int `json:"progress"`
		ElapsedMs int `json:"elapsedMs"`
	} `json:"wait"`
	Control struct {
		TimedOut  bool   `json:"timedOut"`
		Code      *int   `json:"code"`
		Message   string `json:"message"`
		ElapsedMs int    `json:"elapsedMs"`
	} `json:"control"`
}

// sidecarBinaryMCP starts the reference Control Plane and the sidecar binary
// with an mcp block, files one PENDING approval through the Control Plane's
// Sidecar API, and returns the endpoint and the approval id.
func sidecarBinaryMCP(t *testing.T) (url, id string) {
	t.Helper()
	const token = "test-sidecar-token"
	cp := harness.StartControlPlane(t, harness.CPOptions{})
	addr := harness.FreeAddr(t)
	harness.StartSidecar(t, harness.SidecarOptions{Token: token, Config: fmt.Sprintf(
		"sidecar: test\ncontrol_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN}\nmcp: {listen: %s}\nlisteners: []\n", cp.URL, addr)})
	body := `{"fingerprint":"fp-ts","listener_name":"payments","approval_rule":"payments-approvers","statement":"DELETE FROM invoices","protocol":"postgres"}`
	req, _ := http.NewRequest(http.MethodPost, cp.URL+"/api/sidecars/reviews", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a struct {
		ID string `json:"id"`
	}
	if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&a) != nil || a.ID == "" {
		t.Fatalf("file an approval at the Control Plane: %s", resp.Status)
	}
	return "http://" + addr + "/mcp", a.ID
}

// TestTypeScriptSDKClient runs script.mjs against the sidecar binary and the
// reference Control Plane.
func TestTypeScriptSDKClient(t *testing.T) {
	installDeps(t)
	url, id := sidecarBinaryMCP(t)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	script, _ := filepath.Abs("script.mjs")
	cmd := exec.CommandContext(ctx, "node", script, url, id)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node script.mjs: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var r result
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("script output is not JSON: %v\n%s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	t.Logf("TypeScript SDK client negotiated protocol %s; wait took %d ms with %d progress notifications",
		r.ProtocolVersion, r.Wait.ElapsedMs, r.Wait.Progress)

	want := []string{"approval_list", "approval_status", "approval_wait", "review_list", "review_status", "review_wait"}
	if !slices.Equal(r.Tools, want) {
		t.Errorf("listTools: %v, want %v", r.Tools, want)
	}
	if r.Status.IsError || r.Status.JSON["id"] != id || r.Status.JSON["next"] != "wait" {
		t.Errorf("approval_status: %+v", r.Status)
	}
	w := r.Wait
	if w.IsError || w.JSON["timed_out"] != true || w.JSON["next"] != "wait" {
		t.Errorf("approval_wait with a 5 s request timeout did not complete its 12 s wait: %+v", w.parsed)
	}
	if w.ElapsedMs < 11500 || w.Progress < 5 {
		t.Errorf("approval_wait took %d ms with %d progress notifications, want about 12 s and one every 2 s", w.ElapsedMs, w.Progress)
	}
	if !r.Control.TimedOut || r.Control.Code == nil || *r.Control.Code != -32001 || r.Control.ElapsedMs > 9000 {
		t.Errorf("control wait without resetTimeoutOnProgress: %+v, want a request timeout after 5 s", r.Control)
	}
}

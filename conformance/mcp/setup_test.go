// Package mcpconf runs the sidecar binary with an mcp block against the
// reference Control Plane binary (conformance/harness) and drives the MCP
// server with the go-sdk client: decisions made with the Control Plane's CLI,
// coalesced reads counted by the Control Plane, hang-ups, bind failure,
// reload, a Control Plane killed and restarted during a wait, and the full
// timeout without a progress token.
package mcpconf

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hoophq/sidecar/conformance/harness"
)

const sidecarToken = "test-sidecar-token"

var protocolVersions = []string{"2025-06-18", "2025-11-25"}

// sidecarConfig is a Sidecar with a Control Plane, an mcp block and no listener.
func sidecarConfig(cpURL, mcpListen string) string {
	return fmt.Sprintf(`sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN}
mcp: {listen: %s}
listeners: []
`, cpURL, mcpListen)
}

type stack struct {
	cp      *harness.ControlPlane
	sidecar *harness.Sidecar
	mcpAddr string
}

func (s *stack) url() string { return "http://" + s.mcpAddr + "/mcp" }

// startStack starts the reference Control Plane and a Sidecar serving MCP.
func startStack(t *testing.T) *stack {
	t.Helper()
	cp := harness.StartControlPlane(t, harness.CPOptions{})
	addr := harness.FreeAddr(t)
	sc := harness.StartSidecar(t, harness.SidecarOptions{Config: sidecarConfig(cp.URL, addr), Token: sidecarToken})
	return &stack{cp: cp, sidecar: sc, mcpAddr: addr}
}

// file files a PENDING approval request through the Sidecar API of the
// Control Plane (as a listener would) and returns its id.
func (s *stack) file(t *testing.T, fingerprint string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"fingerprint": fingerprint, "listener_name": "payments",
		"approval_rule": "payments-approvers", "statement": "DELETE FROM invoices", "protocol": "postgres",
		"client_identity": "agent"})
	req, _ := http.NewRequest(http.MethodPost, s.cp.URL+"/api/sidecars/reviews", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+sidecarToken)
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
		t.Fatalf("file: %s", resp.Status)
	}
	return a.ID
}

// reads is how many times the Sidecar read id at the Control Plane.
func (s *stack) reads(t *testing.T, id string) int { return s.cp.Review(t, id).SidecarReads }

func connect(t *testing.T, url, version string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "conformance", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callJSON(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, text)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("%s: %v: %s", name, err, text)
	}
	return m
}

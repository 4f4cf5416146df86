package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hoophq/sidecar/adapters/inbound/mcp"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// The protocol versions real agents send (docs/mcp.md, "Transport").
var protocolVersions = []string{"2025-06-18", "2025-11-25"}

// secretStatement is filed with every approval; no answer may contain it.
const secretStatement = "DROP TABLE payroll_secret_9d1e"

type env struct {
	cp   *fakecp.CP
	core *app.Core
	srv  *mcp.Server
	url  string
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newEnv starts an MCP server on 127.0.0.1:0 backed by a fresh fakecp.
func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, fakecp.New(nil), nil)
}

func newEnvWith(t *testing.T, cp *fakecp.CP, allowed []string) *env {
	t.Helper()
	return newEnvOn(t, "127.0.0.1:0", cp, allowed)
}

// newEnvOn starts an MCP server with mcp.listen set to listen; its url
// reaches it through 127.0.0.1 on the bound port (also for 0.0.0.0).
func newEnvOn(t *testing.T, listen string, cp *fakecp.CP, allowed []string) *env {
	t.Helper()
	core := app.NewCore(app.CoreOptions{Sidecar: "test", CP: cp, WithMCP: true})
	srv, err := mcp.New(mcp.Options{Listen: listen, AllowedHosts: allowed, Approvals: core.Approvals, Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	_, port, err := net.SplitHostPort(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	return &env{cp: cp, core: core, srv: srv, url: "http://127.0.0.1:" + port + mcp.Path}
}

// file files a PENDING approval request on listener "payments" and returns its id.
func (e *env) file(t *testing.T, fingerprint string) string {
	t.Helper()
	return fileOn(t, e.cp, fingerprint)
}

func fileOn(t *testing.T, cp *fakecp.CP, fingerprint string) string {
	t.Helper()
	f, err := cp.File(context.Background(), ports.FileRequest{Fingerprint: fingerprint, ListenerName: "payments",
		ApprovalRule: "payments-approvers", Statement: secretStatement, Protocol: "postgres", ClientIdentity: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	return f.Approval.ID
}

// progressLog collects progress notifications a client receives.
type progressLog struct {
	mu   sync.Mutex
	got  []*sdk.ProgressNotificationParams
	when []time.Time
}

func (p *progressLog) add(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, r.Params)
	p.when = append(p.when, time.Now())
}

func (p *progressLog) count(token any) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, g := range p.got {
		if g.ProgressToken == token {
			n++
		}
	}
	return n
}

// connect opens a go-sdk client session pinned to protocol version.
func connect(t *testing.T, url, version string) (*sdk.ClientSession, *progressLog) {
	t.Helper()
	pl := &progressLog{}
	c := sdk.NewClient(&sdk.Implementation{Name: "sidecar-test", Version: "1"},
		&sdk.ClientOptions{ProgressNotificationHandler: pl.add})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s (%s): %v", url, version, err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated protocol %q, want %q", got, version)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, pl
}

// call calls tool name with args and returns the result; a protocol error fails the test.
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	return callWith(t, cs, &sdk.CallToolParams{Name: name, Arguments: args}, 30*time.Second)
}

func callWith(t *testing.T, cs *sdk.ClientSession, p *sdk.CallToolParams, limit time.Duration) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("call %s: %v", p.Name, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("call %s: no content", p.Name)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok && strings.Contains(tc.Text, secretStatement) {
			t.Fatalf("call %s: the answer contains the statement: %s", p.Name, tc.Text)
		}
	}
	return res
}

// text returns the first text content.
func text(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	return tc.Text
}

// answer decodes a successful answer's text as JSON (and checks it equals
// the structured content).
func answer(t *testing.T, res *sdk.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(t, res))
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(text(t, res)), &m); err != nil {
		t.Fatalf("answer is not JSON: %v: %s", err, text(t, res))
	}
	sc, _ := json.Marshal(res.StructuredContent)
	var ms map[string]any
	if err := json.Unmarshal(sc, &ms); err != nil || !jsonEqual(m, ms) {
		t.Fatalf("structured content %s differs from text %s", sc, text(t, res))
	}
	return m
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// toolError returns the text of a tool error, failing if the call succeeded.
func toolError(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error, got %s", text(t, res))
	}
	return text(t, res)
}

package mcpconf

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hoophq/sidecar/conformance/harness"
)

// approval_wait, waiting on a PENDING approval, returns the decision a
// person makes meanwhile with the Control Plane's CLI: APPROVED and
// timed_out false (a wait that missed the decision would run to its
// 60-second timeout and say timed_out true). How soon it answers is a
// figure for docs/performance.md, not an assertion here.
func TestWaitReturnsTheDecisionTheCLIMakes(t *testing.T) {
	s := startStack(t)
	for _, v := range protocolVersions {
		for _, tool := range []string{"approval_wait", "review_wait"} {
			t.Run(v+"/"+tool, func(t *testing.T) {
				t.Parallel()
				id := s.file(t, "fp-cli-"+v+tool)
				cs := connect(t, s.url(), v)
				go func() {
					time.Sleep(2 * time.Second) // the wait has begun
					if out, err := s.cp.TryCLI("approve", id); err != nil {
						t.Errorf("controlplane approve: %v\n%s", err, out)
					}
				}()
				m := callJSON(t, cs, tool, map[string]any{"id": id})
				if m["status"] != "APPROVED" || m["next"] != "resend_identical_statement" || m["timed_out"] != false {
					t.Fatalf("answer %v", m)
				}
			})
		}
	}
}

// 200 concurrent approval_wait calls on one approval for 10 s cause at most
// 6 reads of it at the reference Control Plane (its per-request counter).
func TestTwoHundredWaitsCostAtMostSixReads(t *testing.T) {
	s := startStack(t)
	id := s.file(t, "fp-200")
	before := s.reads(t, id)
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 10 {
		cs := connect(t, s.url(), protocolVersions[i%2])
		for j := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := &sdk.CallToolParams{Name: []string{"approval_wait", "review_wait"}[j%2],
					Arguments: map[string]any{"id": id, "timeout_seconds": 10}}
				if j%4 < 2 {
					p.SetProgressToken(fmt.Sprintf("p%d-%d", i, j))
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				res, err := cs.CallTool(ctx, p)
				if err == nil && (res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, `"timed_out":true`)) {
					err = fmt.Errorf("answer %v", res.Content[0])
				}
				if err != nil {
					errs <- err
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := s.reads(t, id) - before; n > 6 || n < 1 {
		t.Fatalf("the Control Plane counted %d reads for 200 waits of 10 s, want 1..6", n)
	}
}

// 50 callers that hang up after 1 s cause no reads after they left.
func TestCallersThatHangUpStopTheReads(t *testing.T) {
	s := startStack(t)
	id := s.file(t, "fp-hangup")
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"approval_wait","arguments":{"id":%q}}}`, i+1, id)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.url(), strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", protocolVersions[i%2])
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	time.Sleep(100 * time.Millisecond)
	left := s.reads(t, id)
	time.Sleep(4500 * time.Millisecond)
	if after := s.reads(t, id); after != left {
		t.Fatalf("%d reads after every caller hung up, want none", after-left)
	}
}

// Cross-origin browser requests and DNS rebinding are refused with 403 by the
// binary too, on its loopback mcp.listen.
func TestBinaryRefusesBrowsersAndRebinding(t *testing.T) {
	s := startStack(t)
	for name, set := range map[string]func(*http.Request){
		"origin":          func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") },
		"cross-site":      func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") },
		"host":            func(r *http.Request) { r.Host = "evil.example:8765" },
		"host, no port":   func(r *http.Request) { r.Host = "evil.example" },
		"kubernetes host": func(r *http.Request) { r.Host = k8sHost },
	} {
		if code, body := postToolsList(t, s.url(), set); code != http.StatusForbidden {
			t.Errorf("%s: %d %q, want 403", name, code, body)
		}
	}
}

// k8sHost is the Host an agent sends for the spec's Kubernetes URL,
// http://<fullname>-mcp.<namespace>.svc:8765/mcp, with release payments in
// namespace agents.
const k8sHost = "payments-hoopsidecar-mcp.agents.svc:8765"

// On a listen that is not loopback (the spec's "listen: 0.0.0.0:8765" on
// Kubernetes), the binary answers the spec's agent URLs, whatever name they
// use, and still refuses browsers by their Origin.
func TestBinaryOnAnyAddressAnswersTheSpecsAgentURLs(t *testing.T) {
	cp := harness.StartControlPlane(t, harness.CPOptions{})
	_, port, _ := net.SplitHostPort(harness.FreeAddr(t))
	sc := harness.StartSidecar(t, harness.SidecarOptions{Config: sidecarConfig(cp.URL, "0.0.0.0:"+port), Token: sidecarToken})
	s := &stack{cp: cp, sidecar: sc, mcpAddr: "127.0.0.1:" + port}
	for _, host := range []string{k8sHost, "payments-sidecar:8765"} {
		code, body := postToolsList(t, s.url(), func(r *http.Request) { r.Host = host })
		if code != http.StatusOK || !strings.Contains(body, `"approval_wait"`) {
			t.Errorf("tools/list with Host %s: %d %q, want 200 with the tools", host, code, body)
		}
	}
	// A whole go-sdk session (initialize, then a tool call) under the
	// Kubernetes name.
	id := s.file(t, "fp-any-host")
	c := sdk.NewClient(&sdk.Implementation{Name: "conformance", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.url(), MaxRetries: -1,
		HTTPClient: &http.Client{Transport: hostRewriter{host: k8sHost}}},
		&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect with Host %s: %v", k8sHost, err)
	}
	defer cs.Close()
	if m := callJSON(t, cs, "approval_status", map[string]any{"id": id}); m["id"] != id || m["status"] != "PENDING" {
		t.Fatalf("approval_status with Host %s: %v", k8sHost, m)
	}
	for name, set := range map[string]func(*http.Request){
		"evil origin": func(r *http.Request) { r.Host = k8sHost; r.Header.Set("Origin", "http://evil.example") },
		"rebound page": func(r *http.Request) {
			r.Host = "evil.example:8765"
			r.Header.Set("Origin", "http://evil.example:8765")
		},
		"null origin": func(r *http.Request) { r.Header.Set("Origin", "null") },
		"cross-site":  func(r *http.Request) { r.Host = k8sHost; r.Header.Set("Sec-Fetch-Site", "cross-site") },
	} {
		if code, body := postToolsList(t, s.url(), set); code != http.StatusForbidden {
			t.Errorf("%s: %d %q, want 403", name, code, body)
		}
	}
}

// postToolsList posts a tools/list to url, changed by set, and returns the
// status code and body.
func postToolsList(t *testing.T, url string, set func(*http.Request)) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	set(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// hostRewriter sends every request with Host set to host, as a client that
// reached the Sidecar through that DNS name would.
type hostRewriter struct{ host string }

func (h hostRewriter) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = h.host
	return http.DefaultTransport.RoundTrip(r)
}

// A bind failure of the MCP server stops the Sidecar.
func TestBindFailureStopsTheSidecar(t *testing.T) {
	cp := harness.StartControlPlane(t, harness.CPOptions{})
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	sc := harness.StartSidecar(t, harness.SidecarOptions{Config: sidecarConfig(cp.URL, busy.Addr().String()),
		Token: sidecarToken, NoWait: true})
	code, err := sc.Wait(20 * time.Second)
	if err != nil || code == 0 {
		t.Fatalf("sidecar with a busy mcp.listen: exit %d, %v; want a non-zero exit\n%s", code, err, sc.Output())
	}
	if out := sc.Output(); !strings.Contains(out, busy.Addr().String()) || strings.Contains(out, "sidecar ready") {
		t.Fatalf("the output should name the address and never say ready:\n%s", out)
	}
}

// A reload does not start, stop or move the MCP server.
func TestReloadDoesNotMoveTheServer(t *testing.T) {
	s := startStack(t)
	id := s.file(t, "fp-reload")
	moved := harness.FreeAddr(t)
	for _, cfg := range []string{
		sidecarConfig(s.cp.URL, moved), // moved
		strings.Replace(sidecarConfig(s.cp.URL, moved), "mcp: {listen: "+moved+"}\n", "", 1), // removed
	} {
		before := len(s.sidecar.Output())
		s.sidecar.Reload(t, cfg)
		if !strings.Contains(s.sidecar.Output()[before:], "reload does not start, stop or move the MCP server") {
			t.Fatalf("reload did not say the MCP server stays:\n%s", s.sidecar.Output()[before:])
		}
		cs := connect(t, s.url(), "2025-11-25")
		if m := callJSON(t, cs, "approval_status", map[string]any{"id": id}); m["id"] != id {
			t.Fatalf("after reload, the original address answers %v", m)
		}
		if c, err := net.DialTimeout("tcp", moved, time.Second); err == nil {
			c.Close()
			t.Fatalf("after reload, something listens on the new mcp.listen %s", moved)
		}
	}
	// Adding the block back with a reload does not start a second server either.
	s.sidecar.Reload(t, sidecarConfig(s.cp.URL, moved))
	if c, err := net.DialTimeout("tcp", moved, time.Second); err == nil {
		c.Close()
		t.Fatalf("a reload started a server on %s", moved)
	}
}

package mcp_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/internal/fakecp"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

// post sends an initialize request with the given Host override and headers
// and returns the status code and body.
func post(t *testing.T, url, host string, headers map[string]string) (int, string) {
	t.Helper()
	return send(t, initializeRequest(t, url), host, headers)
}

// send sets headers and (when not empty) the Host on req, sends it and
// returns the status code and body.
func send(t *testing.T, req *http.Request, host string, headers map[string]string) (int, string) {
	t.Helper()
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestRefusesCrossOriginAndDNSRebinding(t *testing.T) {
	e := newEnvWith(t, fakecp.New(nil), []string{"sidecar.internal", "mcp.example:8765"})
	_, port, _ := net.SplitHostPort(e.srv.Addr())
	self := "http://127.0.0.1:" + port

	refused := []struct {
		name    string
		host    string
		headers map[string]string
	}{
		{"evil origin", "", map[string]string{"Origin": "http://evil.example"}},
		{"cross-site fetch", "", map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"same-site fetch from another port", "", map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:3000"}},
		{"rebound host", "evil.example:8765", nil},
		{"rebound host without port", "evil.example", nil},
		{"rebound host with its own origin", "evil.example:8765", map[string]string{"Origin": "http://evil.example:8765", "Sec-Fetch-Site": "same-origin"}},
		{"allowed name on another port", "mcp.example:9999", nil},
		{"null origin", "", map[string]string{"Origin": "null"}},
		{"loopback origin on another port", "", map[string]string{"Origin": "http://localhost:5173"}},
	}
	for _, c := range refused {
		t.Run("refused/"+c.name, func(t *testing.T) {
			code, body := post(t, e.url, c.host, c.headers)
			if code != http.StatusForbidden || !strings.HasPrefix(body, "forbidden: ") {
				t.Fatalf("got %d %q, want 403", code, body)
			}
		})
	}

	allowed := []struct {
		name    string
		host    string
		headers map[string]string
	}{
		{"agent without origin", "", nil},
		{"localhost", "localhost:" + port, nil},
		{"configured name", "sidecar.internal:" + port, nil},
		{"configured name with port", "mcp.example:8765", nil},
		{"ip address", "10.0.0.7:8765", nil},
		{"same origin", "", map[string]string{"Origin": self, "Sec-Fetch-Site": "same-origin"}},
	}
	for _, c := range allowed {
		t.Run("allowed/"+c.name, func(t *testing.T) {
			code, body := post(t, e.url, c.host, c.headers)
			if code != http.StatusOK || !strings.Contains(body, `"protocolVersion":"2025-06-18"`) {
				t.Fatalf("got %d %q, want 200 with an initialize answer", code, body)
			}
		})
	}
}

func TestOnlyPostOnTheMCPPath(t *testing.T) {
	e := newEnv(t)
	resp, err := http.Get(e.url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET /mcp: %d, want 405 (no session, no standalone stream)", resp.StatusCode)
	}
	resp, err = http.Post(strings.TrimSuffix(e.url, "/mcp")+"/other", "application/json", strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("POST /other: %d, want 404", resp.StatusCode)
	}
	resp, err = http.DefaultClient.Do(initializeRequest(t, e.url))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("initialize: %d, Mcp-Session-Id %q; want 200 and no session", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
	}
}

func initializeRequest(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	return req
}

const toolsListBody = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

// toolsList posts tools/list to url with Host set to host (when not empty)
// and the given headers; it returns the status code and body.
func toolsList(t *testing.T, url, host string, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(toolsListBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	return send(t, req, host, headers)
}

// The spec's agent URLs name the Sidecar by a DNS name (payments-sidecar, a
// Kubernetes Service): on a listen that is not loopback every Host is
// answered, while the Origin checks still refuse browsers. On a loopback
// listen an unknown Host is DNS rebinding and is refused.
func TestHostCheckOnlyOnALoopbackListen(t *testing.T) {
	const k8sHost = "payments-hoopsidecar-mcp.agents.svc:8765"
	browser := map[string]map[string]string{
		"evil origin":             {"Origin": "http://evil.example"},
		"rebound page":            {"Origin": "http://" + k8sHost, "Sec-Fetch-Site": "same-origin"},
		"null origin":             {"Origin": "null"},
		"cross-site fetch":        {"Sec-Fetch-Site": "cross-site"},
		"loopback origin":         {"Origin": "http://localhost:5173"},
		"same-site other service": {"Sec-Fetch-Site": "same-site", "Origin": "http://web.agents.svc"},
	}
	cases := []struct {
		listen   string
		answered []string // Host values a tools/list is answered for
		refused  []string // Host values refused with 403
	}{
		{"0.0.0.0:0", []string{k8sHost, "payments-sidecar:8765", "evil.example", "10.0.0.7:8765", "localhost"}, nil},
		{"[::]:0", []string{k8sHost, "payments-sidecar:8765"}, nil},
		{"127.0.0.1:0", []string{"localhost:8765", "127.0.0.1:8765"}, []string{"evil.example", "evil.example:8765", k8sHost, "payments-sidecar:8765"}},
		{"localhost:0", []string{"localhost:8765"}, []string{"evil.example", k8sHost}},
	}
	for _, c := range cases {
		t.Run(c.listen, func(t *testing.T) {
			if strings.HasPrefix(c.listen, "[::]") {
				if ln, err := net.Listen("tcp", "[::]:0"); err != nil {
					t.Skipf("no IPv6 wildcard on this machine: %v", err)
				} else {
					ln.Close()
				}
			}
			e := newEnvOn(t, c.listen, fakecp.New(nil), nil)
			for _, h := range c.answered {
				code, body := toolsList(t, e.url, h, nil)
				if code != http.StatusOK || !strings.Contains(body, `"approval_wait"`) {
					t.Errorf("Host %s: got %d %q, want 200 with the tools", h, code, body)
				}
			}
			for _, h := range c.refused {
				code, body := toolsList(t, e.url, h, nil)
				if code != http.StatusForbidden || !strings.Contains(body, "not allowed on a loopback listen") {
					t.Errorf("Host %s: got %d %q, want 403 naming the loopback Host check", h, code, body)
				}
			}
			for name, hdr := range browser {
				code, body := toolsList(t, e.url, k8sHost, hdr)
				if code != http.StatusForbidden || !strings.HasPrefix(body, "forbidden: ") {
					t.Errorf("%s: got %d %q, want 403", name, code, body)
				}
			}
		})
	}
}

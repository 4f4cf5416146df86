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
	req := initializeRequest(t, url)
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

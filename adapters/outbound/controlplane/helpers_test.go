package controlplane

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

const testToken = "s3cr3t-sidecar-token-0123456789"

// seen is one request as the test server received it.
type seen struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   map[string]any
}

// server is a Control Plane stand-in: each request is recorded and answered
// by the next handler in replies (the last one repeats).
type server struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []seen
	replies []http.HandlerFunc
}

func newServer(t *testing.T, replies ...http.HandlerFunc) *server {
	t.Helper()
	s := &server{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, seen{Method: r.Method, Path: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
		h := s.replies[min(n, len(s.replies)-1)]
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.reqs...)
}

// reply answers status with body as JSON and X-Hoop-Api-Version: 1.
func reply(status int, body any) http.HandlerFunc {
	return replyVersion("1", status, body)
}

// replyVersion answers with the given X-Hoop-Api-Version ("" = none).
func replyVersion(version string, status int, body any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if version != "" {
			w.Header().Set("X-Hoop-Api-Version", version)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		switch b := body.(type) {
		case nil:
		case string:
			_, _ = io.WriteString(w, b)
		default:
			_ = json.NewEncoder(w).Encode(b)
		}
	}
}

// replyRaw answers status with body as is, Content-Type ctype ("" = none)
// and X-Hoop-Api-Version version ("" = none): a proxy's page or garbage.
func replyRaw(version string, status int, ctype, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if version != "" {
			w.Header().Set("X-Hoop-Api-Version", version)
		}
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		} else {
			w.Header()["Content-Type"] = nil // no sniffing: no Content-Type at all
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// apiErr is the contract's error body.
func apiErr(code, msg string) map[string]any { return map[string]any{"code": code, "message": msg} }

// approvalJSON is a full approval object as the doc shows it.
func approvalJSON(id, status string) map[string]any {
	return map[string]any{
		"id": id, "status": status, "listener_name": "billing-api", "approval_rule": "billing-approvers",
		"protocol": "http", "fingerprint": "v1:4f0c", "created_at": "2026-09-29T14:02:11Z",
		"decided_at": nil, "expires_at": "2026-09-29T14:32:11Z",
	}
}

func with(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == deleteKey {
			delete(out, kv[i].(string))
			continue
		}
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

type deleteMarker struct{}

var deleteKey = deleteMarker{}

// observation is one Observe call.
type observation struct {
	Call, Kind string
	Seconds    float64
}

// newClient returns a client of s with a static token, a short timeout and
// an Observe that records into *obs.
func newClient(t *testing.T, url string, obs *[]observation) *Client {
	t.Helper()
	var mu sync.Mutex
	c, err := New(Options{URL: url, Token: StaticToken(testToken), Timeout: 2 * time.Second, SidecarVersion: "1.250.0",
		Observe: func(call string, seconds float64, kind string) {
			if obs != nil {
				mu.Lock()
				*obs = append(*obs, observation{call, kind, seconds})
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

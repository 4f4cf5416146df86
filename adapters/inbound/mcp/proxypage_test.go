package mcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hoophq/sidecar/adapters/inbound/mcp"
	"github.com/hoophq/sidecar/adapters/outbound/controlplane"
	"github.com/hoophq/sidecar/app"
)

// proxyInFront is a Control Plane behind a reverse proxy that is being
// redeployed: its first answer is the Control Plane's (PENDING), the next
// six are the proxy's own HTML pages (404 while the upstream route is gone,
// then 502), every later one the Control Plane's APPROVED.
func proxyInFront(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/sidecars/reviews/9f97" {
			http.NotFound(w, r)
			return
		}
		i := n.Add(1)
		status, page := "PENDING", ""
		switch {
		case i >= 2 && i <= 4:
			page = "<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>"
		case i >= 5 && i <= 7:
			page = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"
		case i >= 8:
			status = "APPROVED"
		}
		if page != "" {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(map[bool]int{true: 404, false: 502}[i <= 4])
			_, _ = io.WriteString(w, page)
			return
		}
		w.Header().Set("X-Hoop-Api-Version", "1")
		w.Header().Set("Content-Type", "application/json")
		decided := "null"
		if status == "APPROVED" {
			decided = `"2026-09-29T14:03:40Z"`
		}
		_, _ = io.WriteString(w, `{"id":"9f97","status":"`+status+`","listener_name":"payments",`+
			`"approval_rule":"payments-approvers","protocol":"postgres","fingerprint":"v1:4f0c",`+
			`"created_at":"2026-09-29T14:02:11Z","decided_at":`+decided+`,"expires_at":"2099-01-01T00:00:00Z"}`)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

// A proxy's HTML 404 or 502 page is not the Control Plane saying it is
// older: approval_wait keeps waiting through it and answers the decision
// once the Control Plane answers again (docs/control-plane-api.md).
func TestWaitKeepsWaitingThroughAProxysHTMLPages(t *testing.T) {
	s, n := proxyInFront(t)
	cp, err := controlplane.New(controlplane.Options{URL: s.URL, Token: controlplane.StaticToken("sidecar-token-0123"),
		Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	core := app.NewCore(app.CoreOptions{Sidecar: "test", CP: cp, WithMCP: true})
	core.Watcher.Interval = 100 * time.Millisecond
	srv, err := mcp.New(mcp.Options{Listen: "127.0.0.1:0", Approvals: core.Approvals, Log: quietLog()})
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
	cs, _ := connect(t, "http://"+srv.Addr()+mcp.Path, protocolVersions[0])
	res := call(t, cs, "approval_wait", map[string]any{"id": "9f97", "timeout_seconds": 30})
	if res.IsError {
		t.Fatalf("approval_wait ended with an error through the proxy's pages: %s", text(t, res))
	}
	m := answer(t, res)
	if m["status"] != "APPROVED" || m["timed_out"] != false {
		t.Fatalf("answer %v, want APPROVED, not timed out", m)
	}
	if got := n.Load(); got < 8 {
		t.Fatalf("the Control Plane was read %d times, want the wait to outlast the 6 proxy pages", got)
	}
}

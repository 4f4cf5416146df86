package httplistener_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	httplistener "github.com/hoophq/sidecar/adapters/inbound/http"
	"github.com/hoophq/sidecar/adapters/outbound/controlplane"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/listenertest"
)

// The status path through the real Control Plane client: a proxy's HTML
// 404 page is "could not report" (502, unavailable), not "older"; a JSON
// answer without X-Hoop-Api-Version (a Control Plane from before the
// contract) is still "older"; the Control Plane's own answer is read again
// on the next call (docs/control-plane-api.md).
func TestStatusPathTellsAProxysPageFromAnOlderControlPlane(t *testing.T) {
	var phase atomic.Int32 // 0: proxy page, 1: older Control Plane, 2: the contract's answer
	cp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch phase.Load() {
		case 0:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, "<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>")
		case 1:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"message":"no route"}`)
		default:
			w.Header().Set("X-Hoop-Api-Version", "1")
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":"9f97","status":"PENDING","listener_name":"api","approval_rule":"r",`+
				`"protocol":"http","fingerprint":"v1:4f0c","created_at":"2026-09-29T14:02:11Z","decided_at":null,`+
				`"expires_at":"2099-01-01T00:00:00Z"}`)
		}
	}))
	t.Cleanup(cp.Close)
	client, err := controlplane.New(controlplane.Options{URL: cp.URL, Token: controlplane.StaticToken("sidecar-token-0123"),
		Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	up, _ := newUpstream(t, nil)
	core := app.NewCore(app.CoreOptions{Sidecar: "test", CP: client})
	addr := listenertest.Serve(t, httplistener.New(nil), core.Listener(app.ListenerSettings{Name: "api", Protocol: "http", Upstream: up.URL}))
	url := "http://" + addr + "/.well-known/hoop/approvals/9f97"

	resp, body := send(t, "GET", url, "")
	statusChecks(t, resp, 502)
	if msg, _ := jsonObject(t, body)["message"].(string); !strings.Contains(msg, "could not report") || strings.Contains(msg, "older") {
		t.Errorf("a proxy's HTML 404: message %q, want the unavailable text", msg)
	}
	phase.Store(1)
	resp, body = send(t, "GET", url, "")
	statusChecks(t, resp, 502)
	if msg, _ := jsonObject(t, body)["message"].(string); !strings.Contains(msg, "older than this Sidecar") {
		t.Errorf("an older Control Plane: message %q, want the older text", msg)
	}
	phase.Store(2)
	resp, body = send(t, "GET", url, "")
	statusChecks(t, resp, 200)
	if s := jsonObject(t, body)["status"]; s != "PENDING" {
		t.Errorf("status %v, want PENDING", s)
	}
}

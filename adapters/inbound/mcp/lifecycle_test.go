package mcp_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hoophq/sidecar/adapters/inbound/mcp"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

func TestNewRefusesAConfigItCannotServe(t *testing.T) {
	withCP := app.NewCore(app.CoreOptions{Sidecar: "test", CP: fakecp.New(nil)}).Approvals
	noCP := app.NewCore(app.CoreOptions{Sidecar: "test"}).Approvals
	cases := []struct {
		name string
		o    mcp.Options
		want string
	}{
		{"no listen", mcp.Options{Approvals: withCP}, "mcp.listen is required"},
		{"no control plane", mcp.Options{Listen: "127.0.0.1:0", Approvals: noCP}, "needs a Control Plane"},
		{"bad allowed host", mcp.Options{Listen: "127.0.0.1:0", Approvals: withCP, AllowedHosts: []string{"http://x/"}}, "mcp.allowed_hosts"},
	}
	for _, c := range cases {
		if _, err := mcp.New(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if err := mcp.CheckAllowedHosts([]string{"sidecar.internal", "mcp.example:8765", "[fd00::1]:8765", "10.0.0.7"}); err != nil {
		t.Errorf("good allowed_hosts refused: %v", err)
	}
	for _, bad := range []string{"", "http://x", "a b", "*.example"} {
		if err := mcp.CheckAllowedHosts([]string{bad}); err == nil {
			t.Errorf("allowed_hosts %q accepted", bad)
		}
	}
}

func TestStartReturnsTheBindError(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	core := app.NewCore(app.CoreOptions{Sidecar: "test", CP: fakecp.New(nil)})
	srv, err := mcp.New(mcp.Options{Listen: busy.Addr().String(), Approvals: core.Approvals})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("Start on a busy port: %v, want the bind error", err)
	}
}

// Shutdown ends waits in flight with timed_out: true, so the agent calls again.
func TestShutdownAnswersWaitsInFlight(t *testing.T) {
	e := newEnv(t)
	id := e.file(t, "fp-shutdown")
	cs, _ := connect(t, e.url, "2025-11-25")
	go func() {
		time.Sleep(time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = e.srv.Shutdown(ctx)
	}()
	start := time.Now()
	p := &sdk.CallToolParams{Name: "approval_wait", Arguments: map[string]any{"id": id, "timeout_seconds": 60}}
	p.SetProgressToken("shutdown")
	m := answer(t, callWith(t, cs, p, 10*time.Second))
	if m["timed_out"] != true || m["next"] != "wait" || time.Since(start) > 3*time.Second {
		t.Fatalf("answer %v after %v, want timed_out at shutdown", m, time.Since(start))
	}
}

// A client that sent no progress token gets the timeout it asked for (no
// cap), and no progress notifications.
func TestWaitWithoutProgressTokenHonoursTheTimeout(t *testing.T) {
	e := newEnv(t)
	id := e.file(t, "fp-noprogress")
	cs, pl := connect(t, e.url, "2025-06-18")
	m := answer(t, call(t, cs, "review_wait", map[string]any{"id": id, "timeout_seconds": 3}))
	if m["timed_out"] != true || m["waited_seconds"] != float64(3) || m["next"] != "wait" {
		t.Fatalf("answer %v, want timed_out after the 3 s asked", m)
	}
	if !strings.Contains(m["instruction"].(string), "call review_wait with this id again") {
		t.Fatalf("instruction %v", m["instruction"])
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if len(pl.got) != 0 {
		t.Fatalf("%d progress notifications without a progress token", len(pl.got))
	}
}

// A Control Plane that fails for the whole wait is answered, at the end of
// timeout_seconds, with the tool error for an unreachable Control Plane.
func TestWaitOnAFailingControlPlaneEndsWithTheUnavailableError(t *testing.T) {
	cp := fakecp.New(nil)
	id := fileOn(t, cp, "fp-down")
	cp.Fail = ports.ErrUnavailable
	e := newEnvWith(t, cp, nil)
	cs, _ := connect(t, e.url, "2025-11-25")
	start := time.Now()
	msg := toolError(t, call(t, cs, "approval_wait", map[string]any{"id": id, "timeout_seconds": 2}))
	if !strings.Contains(msg, "The Control Plane could not report approval request "+id+" right now") ||
		!strings.Contains(msg, "Call approval_wait again") {
		t.Fatalf("error %q", msg)
	}
	if time.Since(start) < 2*time.Second {
		t.Fatalf("answered after %v: a failed read ended the wait before its timeout", time.Since(start))
	}
}

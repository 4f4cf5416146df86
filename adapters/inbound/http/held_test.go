package httplistener_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// A held body that does not fit in the held-payload budget is refused before
// it is read: 503 with Retry-After while other requests hold the budget, 413
// when it is larger than the whole budget; nothing is filed, and once the
// budget is given back the identical request is held for approval as usual.
func TestHeldBodyOverBudgetIsRefused(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := limitedSidecar(app.Limits{HeldBytes: 1 << 20})
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL,
		Approvals: []domain.ApprovalRule{rule(t, "puts", []string{"PUT"}, []string{"/v1/**"}, 0)}})
	url := "http://" + addr + "/v1/items/1"

	resp, body := send(t, "PUT", url, strings.Repeat("x", 2<<20), "X-Hoop-Approval", "return")
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "limits.held_bytes") {
		t.Fatalf("body over the whole budget: %d %q", resp.StatusCode, body)
	}

	others, err := sc.Core.Held.Reserve(context.Background(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	resp, body = send(t, "PUT", url, strings.Repeat("x", 256<<10), "X-Hoop-Approval", "return")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(body, "resend it shortly") {
		t.Fatalf("budget full: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	// Requests no rule covers stream through unread, whatever the budget.
	if resp, _ := send(t, "GET", url, ""); resp.StatusCode != 200 {
		t.Fatalf("GET while the budget is full: %d", resp.StatusCode)
	}
	if n := len(sc.CP.Records()); n != 0 {
		t.Fatalf("refused requests filed %d approval request(s)", n)
	}
	others.Release()
	resp, _ = send(t, "PUT", url, strings.Repeat("x", 256<<10), "X-Hoop-Approval", "return")
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Hoop-Approval-Id") == "" {
		t.Fatalf("after the budget was given back: %d", resp.StatusCode)
	}
	if rec.count("PUT", "/v1/items/1") != 0 {
		t.Fatal("a held PUT reached the upstream")
	}
	if again, err := sc.Core.Held.Reserve(context.Background(), 1<<20); err != nil {
		t.Fatalf("the listener kept budget after the request was denied: %v", err)
	} else {
		again.Release()
	}
}

// A header list over limits.header_bytes is answered 431 by the server
// before the gate sees it; the listener keeps serving.
func TestHeaderListOverLimitIs431(t *testing.T) {
	up, _ := newUpstream(t, nil)
	sc := limitedSidecar(app.Limits{HeaderBytes: 8 << 10})
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
	resp, _ := send(t, "GET", "http://"+addr+"/v1/items", "", "X-Big", strings.Repeat("h", 32<<10))
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("32 KiB header: %d, want 431", resp.StatusCode)
	}
	if resp, _ := send(t, "GET", "http://"+addr+"/v1/items", "", "X-Small", "ok"); resp.StatusCode != 200 {
		t.Fatalf("next request: %d", resp.StatusCode)
	}
}

// A held body that stops arriving is answered 408 after
// limits.body_read_timeout, and its budget is given back.
func TestHeldBodyReadHasADeadline(t *testing.T) {
	up, _ := newUpstream(t, nil)
	sc := limitedSidecar(app.Limits{HeldBytes: 1 << 20, BodyReadTimeout: 300 * time.Millisecond})
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL,
		Approvals: []domain.ApprovalRule{rule(t, "puts", []string{"PUT"}, []string{"/v1/**"}, 0)}})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "PUT /v1/items/1 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", 1<<20, strings.Repeat("x", 1000))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("stalled body: %d, want 408", resp.StatusCode)
	}
	if r, err := sc.Core.Held.Reserve(context.Background(), 1<<20); err != nil {
		t.Fatalf("the stalled request kept its budget: %v", err)
	} else {
		r.Release()
	}
}

// A client that sends Expect: 100-continue is refused without being asked
// for its body: the first answer is the 503, not 100 Continue.
func TestBudgetRefusalDoesNotAskForTheBody(t *testing.T) {
	up, _ := newUpstream(t, nil)
	sc := limitedSidecar(app.Limits{HeldBytes: 1 << 20})
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL,
		Approvals: []domain.ApprovalRule{rule(t, "puts", []string{"PUT"}, []string{"/v1/**"}, 0)}})
	others, err := sc.Core.Held.Reserve(context.Background(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer others.Release()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "PUT /v1/items/1 HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", 256<<10)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("first answer %d, want 503 before any body", resp.StatusCode)
	}
}

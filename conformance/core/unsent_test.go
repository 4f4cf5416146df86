package core

import (
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// spend_approval_on: sent (the default) spends an approval only by a
// forward (issue "Faults…", point 2). The upstream is down when the agent
// resends its approved DELETE: the Sidecar answers 502, and the approval
// reads APPROVED, not EXECUTED with nothing run. Once the upstream is up,
// the agent's next identical resend runs it, once, and the approval reads
// EXECUTED. Before this change the claim took the approval straight to
// EXECUTED and the DELETE never ran without a second person's approval.
func TestSentModeApprovalSurvivesAnUpstreamThatWasDown(t *testing.T) {
	upstreamAddr := harness.FreeAddr(t) // nothing listens here yet
	cp := harness.StartControlPlane(t, harness.CPOptions{})
	addr := harness.FreeAddr(t)
	harness.StartSidecar(t, harness.SidecarOptions{Token: cp.Sidecars["test"], Config: fmt.Sprintf(`
sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN}
approval_rules:
  - {name: deletes, match: {actions: [DELETE]}}
listeners:
  - {name: api, protocol: http, listen: %s, upstream: http://%s, mode: return, approval_rules: [deletes]}
`, cp.URL, addr, upstreamAddr)})

	send := func() *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodDelete, "http://"+addr+"/v1/invoices/42", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	first := send()
	id := first.Header.Get("X-Hoop-Approval-Id")
	if first.StatusCode != http.StatusForbidden || id == "" {
		t.Fatalf("first send: %d, approval id %q; want 403 with an id", first.StatusCode, id)
	}
	cp.Approve(t, id)

	if resp := send(); resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("approved resend with the upstream down: %d, want 502", resp.StatusCode)
	}
	if r := cp.Review(t, id); r.Status != "APPROVED" {
		t.Fatalf("approval %s after a resend that never reached the upstream, want APPROVED", r.Status)
	}

	var deletes atomic.Int64
	ln, err := net.Listen("tcp", upstreamAddr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			deletes.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	})}
	go srv.Serve(ln)
	defer srv.Close()

	if resp := send(); resp.StatusCode != http.StatusOK {
		t.Fatalf("resend with the upstream up: %d, want 200", resp.StatusCode)
	}
	if r := cp.Review(t, id); r.Status != "EXECUTED" {
		t.Fatalf("approval %s after the forwarded resend, want EXECUTED", r.Status)
	}
	next := send()
	if next.StatusCode != http.StatusForbidden || next.Header.Get("X-Hoop-Approval-Id") == id {
		t.Fatalf("the next send: %d (approval %q), want 403 under a new approval", next.StatusCode, next.Header.Get("X-Hoop-Approval-Id"))
	}
	if n := deletes.Load(); n != 1 {
		t.Fatalf("the DELETE reached the upstream %d times, want 1", n)
	}
}

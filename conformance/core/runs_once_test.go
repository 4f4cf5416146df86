package core

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// Two Sidecar processes share one token and one reference Control Plane on
// the local PostgreSQL. One approved statement is resent 50 times at once,
// split across both: the claim is one conditional update in the Control
// Plane's database, so exactly one resend reaches the upstream.
func TestFiftyConcurrentClaimsAcrossTwoSidecarProcessesRunOnce(t *testing.T) {
	var deletes atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			deletes.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer upstream.Close()

	cp := harness.StartControlPlane(t, harness.CPOptions{Store: harness.FreshDatabase(t)})
	addrs := []string{harness.FreeAddr(t), harness.FreeAddr(t)}
	for _, addr := range addrs {
		harness.StartSidecar(t, harness.SidecarOptions{Token: cp.Sidecars["test"], Config: fmt.Sprintf(`
sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN}
approval_rules:
  - {name: deletes, match: {actions: [DELETE]}}
listeners:
  - {name: api, protocol: http, listen: %s, upstream: %s, mode: return, approval_rules: [deletes]}
`, cp.URL, addr, upstream.URL)})
	}

	send := func(addr string) *http.Response {
		req, _ := http.NewRequest(http.MethodDelete, "http://"+addr+"/v1/invoices/42", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return nil
		}
		resp.Body.Close()
		return resp
	}
	first := send(addrs[0])
	id := first.Header.Get("X-Hoop-Approval-Id")
	if first.StatusCode != http.StatusForbidden || id == "" {
		t.Fatalf("first send: %d, approval id %q; want 403 with an id", first.StatusCode, id)
	}
	if again := send(addrs[1]); again.Header.Get("X-Hoop-Approval-Id") != id {
		t.Fatalf("the other Sidecar filed a new request %q for the same statement, want reuse of %s", again.Header.Get("X-Hoop-Approval-Id"), id)
	}
	cp.Approve(t, id)

	var wg sync.WaitGroup
	var ok, denied atomic.Int64
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if resp := send(addrs[i%2]); resp != nil {
				switch resp.StatusCode {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusForbidden:
					denied.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 1 || deletes.Load() != 1 || denied.Load() != 49 {
		t.Fatalf("50 concurrent resends: %d forwarded (%d reached the upstream), %d denied; want exactly 1, 1, 49",
			ok.Load(), deletes.Load(), denied.Load())
	}
	if st := cp.Review(t, id).Status; st != "EXECUTED" {
		t.Fatalf("approval %s is %s after the run, want EXECUTED", id, st)
	}
}

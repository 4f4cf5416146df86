package httpconformance

import (
	"os/exec"
	"testing"
	"time"
)

// curl is killed (timeout 3) while its DELETE waits in wait mode; it saw
// nothing meanwhile (no status line until the decision). The request's
// context ends, so the wait ends: the Sidecar stops reading the approval, a
// later approval with the CLI stays APPROVED (not spent), the DELETE never
// reaches the upstream, and the audit trail says client_gone.
func TestCurlKilledWhileWaiting(t *testing.T) {
	up, rec := newUpstream(t, nil)
	w := newWorld(t, startControlPlane(t, nil), "test")
	base := w.listen(t, listener{Name: "billing-api", Upstream: up.URL, Rules: []rule{heldDeletes}})
	out, err := exec.Command("timeout", "3", "curl", "-s", "-i", "-X", "DELETE", base+"/v1/invoices/42").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 124 {
		t.Fatalf("curl was not killed by timeout (err %v): %q", err, out)
	}
	if len(out) != 0 {
		t.Fatalf("curl received %q while the request waited, want nothing until the decision", out)
	}
	reviews := w.cp.Reviews(t)
	if len(reviews) != 1 {
		t.Fatalf("%d approval requests, want 1", len(reviews))
	}
	id := reviews[0].ID
	w.cp.ApproveAndExpectNoReads(t, id, w.cp.QuietReads(t, id, 5*time.Second))
	if n := rec.count("DELETE", "/v1/invoices/42"); n != 0 {
		t.Fatalf("the DELETE of the killed curl reached the upstream %d times", n)
	}
	if !w.audit.has("client_gone") {
		t.Fatalf("audit trail %v, want client_gone", w.audit.decisions)
	}
}

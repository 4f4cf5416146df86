package httplistener

import (
	"net/http/httptest"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// A denial that is not an approval denial answers X-Hoop-Denied: policy and
// no approval fields, even when the denial holds an id or a retry hint: the
// http listener used to send X-Hoop-Approval-Id and Retry-After beside
// "policy" while the grpc listener sent neither.
func TestPolicyDenialCarriesNoApprovalFields(t *testing.T) {
	w := httptest.NewRecorder()
	writeDenial(w, &domain.Denial{Kind: domain.DeniedByPolicy, ApprovalID: "A1", Status: "PENDING", RetryAfter: true,
		Message: "statement denied by policy p: no"})
	if w.Code != 403 || w.Header().Get("X-Hoop-Denied") != "policy" {
		t.Fatalf("code %d, X-Hoop-Denied %q", w.Code, w.Header().Get("X-Hoop-Denied"))
	}
	for _, h := range []string{"X-Hoop-Approval-Id", "X-Hoop-Review-Id", "X-Hoop-Approval-Status", "X-Hoop-Review-Status", "Retry-After"} {
		if v := w.Header().Values(h); len(v) > 0 {
			t.Errorf("policy denial sent %s: %q", h, v)
		}
	}
}

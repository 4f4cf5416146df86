package grpcconformance

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// pendingMessage is the spec's denial text for a PENDING approval.
func pendingMessage(id string) string {
	return "statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval " + id + ")"
}

// heldDenial checks that err is the listener's approval denial with the
// spec's trailing metadata (status wantStatus; retry-after only when
// retryAfter) and returns the approval id.
func heldDenial(t *testing.T, err error, tr metadata.MD, wantStatus string, retryAfter bool) string {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.PermissionDenied {
		t.Fatalf("error %v, want PERMISSION_DENIED", err)
	}
	id := first(tr, "x-hoop-approval-id")
	if id == "" {
		t.Fatalf("no x-hoop-approval-id in the trailers %v", tr)
	}
	want := map[string]string{"x-hoop-denied": "review", "x-hoop-review-id": id,
		"x-hoop-approval-status": wantStatus, "x-hoop-review-status": wantStatus}
	if retryAfter {
		want["retry-after"] = "5"
	}
	for k, v := range want {
		if got := tr.Get(k); len(got) != 1 || got[0] != v {
			t.Errorf("trailer %s = %q, want [%q]", k, got, v)
		}
	}
	if !retryAfter && len(tr.Get("retry-after")) > 0 {
		t.Errorf("retry-after present with status %s", wantStatus)
	}
	if wantStatus == "PENDING" && st.Message() != pendingMessage(id) {
		t.Errorf("message %q, want the spec's %q", st.Message(), pendingMessage(id))
	}
	return id
}

func first(md metadata.MD, k string) string {
	if v := md.Get(k); len(v) > 0 {
		return v[0]
	}
	return ""
}

// returnMode is the per-call metadata that asks for return mode.
var returnMode = metadata.Pairs("x-hoop-approval", "return")

package grpcconformance

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hoophq/sidecar/conformance/grpc/testpb"
)

// A client whose call waits in wait mode cancels it (its ctx ends after
// 3 s; it received nothing meanwhile, no headers until the decision). The
// stream's context ends, so the wait ends: the Sidecar stops reading the
// approval, a later approval with the CLI stays APPROVED (not spent), the
// call never reaches the upstream, and the audit line says client_gone.
func TestClientCancelsWhileWaiting(t *testing.T) {
	w := newWorld(t)
	addr := w.listen(t, listener{Name: "probe", Rules: []rule{probeAll}})
	c, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := client(t, addr).Unary(c, &testpb.Item{Name: "x", Amount: 1})
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("call ended with %v, want the client's DeadlineExceeded", err)
	}
	reviews := w.reviews(t)
	if len(reviews) != 1 {
		t.Fatalf("%d approval requests, want 1", len(reviews))
	}
	id := reviews[0].ID
	w.cp.ApproveAndExpectNoReads(t, id, w.cp.QuietReads(t, id, 5*time.Second))
	if n := w.up.Count("Unary"); n != 0 {
		t.Fatalf("the cancelled call reached the upstream %d times", n)
	}
	if !strings.Contains(w.sidecar.Output(), `"decision":"client_gone"`) {
		t.Fatalf("no client_gone audit line:\n%s", w.sidecar.Output())
	}
}

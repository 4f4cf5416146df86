package grpclistener_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	grpclistener "github.com/hoophq/sidecar/adapters/inbound/grpc"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/conformance/grpc/testpb"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

const unaryMethod = "/hoop.probe.v1.Probe/Unary"

func TestPolicyDenial(t *testing.T) {
	up := startUpstream(t)
	m := domain.Match{Actions: []string{"CALL"}, Targets: []string{"/hoop.probe.v1.Probe/U*"}}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr,
		Policies: []domain.PolicyRule{{Name: "no-unary", Match: m, Message: "Unary is off"}}})
	_, tr, err := unary(t, probeClient(t, addr, nil), "x")
	st := denied(t, err)
	if st.Message() != "statement denied by policy no-unary: Unary is off" || get(tr, "x-hoop-denied") != "policy" {
		t.Errorf("policy denial %q %v", st.Message(), tr)
	}
	if len(tr.Get("x-hoop-approval-id")) != 0 || up.Count("Unary") != 0 {
		t.Errorf("policy denial carries an approval id or reached the upstream: %v %d", tr, up.Count("Unary"))
	}
}

// Fail closed: a call that needs approval is denied while the Control Plane
// is down (or absent); calls that need none keep flowing.
func TestControlPlaneDownFailsClosed(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr,
		Approvals: []domain.ApprovalRule{rule(t, "held", unaryMethod)}})
	c := probeClient(t, addr, nil)
	sc.CP.down.Store(true)
	_, tr, err := unary(t, c, "x")
	st := denied(t, err)
	if get(tr, "x-hoop-denied") != "policy" || !strings.Contains(st.Message(), "Control Plane is unreachable") ||
		len(tr.Get("x-hoop-approval-id")) != 0 {
		t.Errorf("unavailable: %q %v", st.Message(), tr)
	}
	if _, err := c.Slow(context.Background(), &testpb.SlowRequest{Millis: 1}); err != nil {
		t.Errorf("a call no rule holds failed with the Control Plane down: %v", err)
	}

	noCP := newSidecar(false)
	addr, _ = noCP.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr,
		Approvals: []domain.ApprovalRule{rule(t, "held", unaryMethod)}})
	_, tr, err = unary(t, probeClient(t, addr, nil), "x")
	denied(t, err)
	if get(tr, "x-hoop-denied") != "policy" || up.Count("Unary") != 0 {
		t.Errorf("no Control Plane: %v, upstream %d", tr, up.Count("Unary"))
	}
}

// A rejection is final: the denial says REJECTED with the reason and no
// retry-after, and the resend stays denied.
func TestRejected(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr,
		Approvals: []domain.ApprovalRule{rule(t, "held", unaryMethod)}})
	c := probeClient(t, addr, nil)
	_, tr, _ := unary(t, c, "x")
	id := get(tr, "x-hoop-approval-id")
	if err := sc.CP.Decide(id, domain.StatusRejected, "not today"); err != nil {
		t.Fatal(err)
	}
	_, tr, err := unary(t, c, "x")
	st := denied(t, err)
	want := "statement held for human approval: rejected by a person (not today); do not resend; only a person can ask again (approval " + id + ")"
	if st.Message() != want || get(tr, "x-hoop-approval-status") != "REJECTED" || len(tr.Get("retry-after")) != 0 {
		t.Errorf("rejected: %q %v", st.Message(), tr)
	}
}

// The approver sees the method and a rendering of the message; the Control
// Plane gets the rule and the listener.
func TestApproverDisplay(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr,
		Approvals: []domain.ApprovalRule{rule(t, "held", "/hoop.probe.v1.**")}})
	_, tr, _ := unary(t, probeClient(t, addr, nil), "dave")
	r := sc.record(t, get(tr, "x-hoop-approval-id"))
	if !strings.HasPrefix(r.Statement, "CALL "+unaryMethod+"\n") || !strings.Contains(r.Statement, `1: "dave"`) ||
		r.ApprovalRule != "held" || r.ListenerName != "g" || r.Protocol != "grpc" {
		t.Errorf("record %+v", r)
	}
}

// identity_keys: two principals sending the same call get separate
// approvals, and one's approval is never spent by the other.
func TestIdentityKeysSeparatePrincipals(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr, IdentityKeys: []string{"authorization"},
		Approvals: []domain.ApprovalRule{rule(t, "held", unaryMethod)}})
	c := probeClient(t, addr, nil)
	_, trA, _ := unary(t, c, "x", "authorization", "Bearer alice")
	_, trB, _ := unary(t, c, "x", "authorization", "Bearer bob")
	a, b := get(trA, "x-hoop-approval-id"), get(trB, "x-hoop-approval-id")
	if a == "" || a == b {
		t.Fatalf("approvals %q and %q, want two", a, b)
	}
	if err := sc.CP.Decide(a, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := unary(t, c, "x", "authorization", "Bearer bob"); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("bob used alice's approval: %v", err)
	}
	if _, _, err := unary(t, c, "x", "authorization", "Bearer alice"); err != nil {
		t.Fatalf("alice's approved resend: %v", err)
	}
	// Metadata that is not an identity key does not change the statement.
	_, trC, _ := unary(t, c, "y", "x-trace", "1")
	_, trD, _ := unary(t, c, "y", "x-trace", "2")
	if get(trC, "x-hoop-approval-id") != get(trD, "x-hoop-approval-id") {
		t.Error("a tracing header made the resend a different statement")
	}
}

// spend_approval_on: accepted spends the approval when the upstream answers
// OK, and gives it back when the upstream answers with an error.
func TestSpendOnAccepted(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr, SpendOn: ports.SpendOnAccepted,
		Approvals: []domain.ApprovalRule{rule(t, "held", "/hoop.probe.v1.Probe/*")}})
	c := probeClient(t, addr, nil)

	_, tr, _ := unary(t, c, "ok")
	id := get(tr, "x-hoop-approval-id")
	_ = sc.CP.Decide(id, domain.StatusApproved, "")
	if _, _, err := unary(t, c, "ok"); err != nil {
		t.Fatal(err)
	}
	if st := sc.record(t, id).Status; st != domain.StatusExecuted {
		t.Errorf("after an OK answer the approval is %s, want EXECUTED", st)
	}

	fail := func() error {
		_, err := c.Fail(context.Background(), &testpb.FailRequest{Message: "no"})
		return err
	}
	_ = fail()
	recs := sc.CP.Records()
	fid := recs[len(recs)-1].ID
	_ = sc.CP.Decide(fid, domain.StatusApproved, "")
	if err := fail(); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("approved Fail: %v", err)
	}
	if st := sc.record(t, fid).Status; st != domain.StatusApproved {
		t.Errorf("after the upstream refused, the approval is %s, want APPROVED (given back)", st)
	}
	if n := up.Count("Fail"); n != 1 {
		t.Errorf("upstream saw %d Fail calls, want 1", n)
	}
}

// An upstream that ends an approved call with a status that does not
// refuse it before it acts (INTERNAL: the call may have run in part) gives
// no proof that nothing ran: the approval is spent (spend.go).
func TestSpendOnAcceptedInternalErrorSpends(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr, SpendOn: ports.SpendOnAccepted,
		Approvals: []domain.ApprovalRule{rule(t, "held", "/hoop.probe.v1.Probe/*")}})
	c := probeClient(t, addr, nil)
	fail := func() error {
		_, err := c.Fail(context.Background(), &testpb.FailRequest{Message: "internal"})
		return err
	}
	_ = fail()
	recs := sc.CP.Records()
	id := recs[len(recs)-1].ID
	_ = sc.CP.Decide(id, domain.StatusApproved, "")
	if err := fail(); status.Code(err) != codes.Internal {
		t.Fatalf("approved Fail: %v", err)
	}
	if st := sc.record(t, id).Status; st != domain.StatusExecuted {
		t.Errorf("after INTERNAL the approval is %s, want EXECUTED", st)
	}
	if err := fail(); status.Code(err) != codes.PermissionDenied {
		t.Errorf("the next identical call: %v, want held again", err)
	}
}

// A reload's new rules apply to the next call on the same listener.
func TestReloadAppliesRules(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, l := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr})
	c := probeClient(t, addr, nil)
	if _, _, err := unary(t, c, "x"); err != nil {
		t.Fatal(err)
	}
	s := *l.Settings()
	s.Approvals = []domain.ApprovalRule{rule(t, "held", unaryMethod)}
	l.Update(s)
	if _, _, err := unary(t, c, "x"); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("after the reload: %v", err)
	}
}

// A client-streaming call that half-closes without a message is a statement
// of its own ("no request message"), held and approved like any other.
func TestHeldStreamWithoutMessages(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr,
		Approvals: []domain.ApprovalRule{rule(t, "held", "/hoop.probe.v1.Probe/Upload")}})
	c := probeClient(t, addr, nil)
	call := func() (*testpb.Reply, error) {
		s, err := c.Upload(context.Background())
		if err != nil {
			return nil, err
		}
		return s.CloseAndRecv()
	}
	_, err := call()
	denied(t, err)
	recs := sc.CP.Records()
	if len(recs) != 1 || !strings.HasSuffix(recs[0].Statement, "no request message") {
		t.Fatalf("records %+v", recs)
	}
	_ = sc.CP.Decide(recs[0].ID, domain.StatusApproved, "")
	if r, err := call(); err != nil || r.GetCount() != 0 {
		t.Fatalf("approved empty upload: %v %v", r, err)
	}
}

// Stopping the listener (reload that removes it) lets a running call finish.
func TestStopDrainsRunningCalls(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, stop := serveStoppable(t, sc.Core.Listener(app.ListenerSettings{Name: "g", Protocol: "grpc", Upstream: up.Addr}))
	c := probeClient(t, addr, nil)
	done := make(chan error, 1)
	go func() {
		_, err := c.Slow(context.Background(), &testpb.SlowRequest{Millis: 400})
		done <- err
	}()
	for deadline := time.Now().Add(5 * time.Second); up.Count("Slow") == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("the running call was cut when the listener stopped: %v", err)
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Error("the stopped listener still accepts connections")
	}
}

// A client that compresses its requests with gzip is served, and a held
// compressed call has the same fingerprint as the uncompressed one (the
// statement is the message, not its encoding on the wire).
func TestGzipRequests(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr,
		Approvals: []domain.ApprovalRule{rule(t, "held", unaryMethod)}})
	c := probeClient(t, addr, nil)
	r, err := c.Slow(context.Background(), &testpb.SlowRequest{Millis: 1}, grpc.UseCompressor(gzip.Name))
	if err != nil || r.GetText() != "done" {
		t.Fatalf("gzip call: %v %v", r, err)
	}
	var trA, trB metadata.MD
	_, _ = c.Unary(context.Background(), &testpb.Item{Name: "z"}, grpc.Trailer(&trA))
	_, _ = c.Unary(context.Background(), &testpb.Item{Name: "z"}, grpc.Trailer(&trB), grpc.UseCompressor(gzip.Name))
	if a, b := get(trA, "x-hoop-approval-id"), get(trB, "x-hoop-approval-id"); a == "" || a != b {
		t.Errorf("approval ids %q and %q, want the same", a, b)
	}
}

// A message over MaxMessageBytes ends that call with RESOURCE_EXHAUSTED and
// never reaches the upstream; the connection keeps serving.
func TestOversizeMessage(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr})
	c := probeClient(t, addr, nil)
	_, err := c.Unary(context.Background(), &testpb.Item{Blob: make([]byte, grpclistener.MaxMessageBytes+1)})
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("oversize message: %v, want RESOURCE_EXHAUSTED", err)
	}
	if _, _, err := unary(t, c, "after"); err != nil {
		t.Fatalf("the next call on the same connection: %v", err)
	}
	if n := up.Count("Unary"); n != 1 {
		t.Errorf("upstream saw %d Unary calls, want 1", n)
	}
}

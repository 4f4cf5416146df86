package grpclistener_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/conformance/grpc/testpb"
	"github.com/hoophq/sidecar/domain"
)

// A wait-mode call still waiting for a person when the Sidecar shuts down
// ends at once with UNAVAILABLE and the approval's trailing metadata; the
// upstream never sees it.
func TestShutdownEndsAWaitWithUnavailable(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr, Mode: app.ModeWait, WaitTimeout: time.Minute,
		Approvals: []domain.ApprovalRule{rule(t, "held", unaryMethod)}})
	go func() {
		for len(sc.CP.Records()) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		sc.Core.Gate.BeginShutdown()
	}()
	_, tr, err := unary(t, probeClient(t, addr, nil), "x")
	st := status.Convert(err)
	if st.Code() != codes.Unavailable || get(tr, "x-hoop-denied") != "review" || get(tr, "x-hoop-approval-id") == "" ||
		get(tr, "x-hoop-approval-status") != "PENDING" || up.Count("Unary") != 0 {
		t.Fatalf("wait at shutdown: %v %v (upstream %d), want UNAVAILABLE with the approval", st, tr, up.Count("Unary"))
	}
}

// A call still running at the drain deadline ends with UNAVAILABLE.
func TestDrainDeadlineEndsRunningCalls(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	l := sc.Core.Listener(app.ListenerSettings{Name: "g", Protocol: "grpc", Upstream: up.Addr})
	addr, stop := serveStoppable(t, l)
	c := probeClient(t, addr, nil)
	done := make(chan error, 1)
	go func() {
		_, err := c.Slow(context.Background(), &testpb.SlowRequest{Millis: 20000})
		done <- err
	}()
	for deadline := time.Now().Add(5 * time.Second); up.Count("Slow") == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }() // Serve returns once the drain is over
	defer func() { <-stopped }()
	l.EndDrain()
	select {
	case err := <-done:
		if status.Code(err) != codes.Unavailable {
			t.Fatalf("call at the drain deadline: %v, want UNAVAILABLE", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the running call outlived the drain deadline")
	}
}

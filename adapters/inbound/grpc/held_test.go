package grpclistener_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	grpclistener "github.com/hoophq/sidecar/adapters/inbound/grpc"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/conformance/grpc/testpb"
	"github.com/hoophq/sidecar/domain"
)

func unaryItem(c testpb.ProbeClient, it *testpb.Item) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := c.Unary(metadata.NewOutgoingContext(ctx, metadata.Pairs("x-hoop-approval", "return")), it)
	return err
}

// The first message of a held call takes its size from the held-payload
// budget: over MaxHeldMessage, larger than the whole budget, or while others
// hold the budget, the call ends with RESOURCE_EXHAUSTED, nothing is filed,
// calls no rule covers keep flowing, and once the budget is free the
// identical call is held for approval as usual.
func TestHeldFirstMessageOverBudget(t *testing.T) {
	up := startUpstream(t)
	sc := limitedSidecar(app.Limits{HeldBytes: 1 << 20})
	addr, l := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr,
		Approvals: []domain.ApprovalRule{rule(t, "held", unaryMethod)}})
	c := probeClient(t, addr, nil)
	cases := []struct {
		name string
		size int
		want string
	}{
		{"over MaxHeldMessage", grpclistener.MaxHeldMessage + 1, "at most 8388608 bytes"},
		{"over the whole budget", 2 << 20, "smaller parts"},
	}
	for _, tc := range cases {
		err := unaryItem(c, &testpb.Item{Blob: make([]byte, tc.size)})
		if st := status.Convert(err); st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), tc.want) {
			t.Errorf("%s: %v, want RESOURCE_EXHAUSTED %q", tc.name, err, tc.want)
		}
	}
	others, err := l.Held().Reserve(context.Background(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	err = unaryItem(c, &testpb.Item{Blob: make([]byte, 256<<10)})
	if st := status.Convert(err); st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), "resend it shortly") {
		t.Errorf("budget full: %v", err)
	}
	if _, err := c.Slow(context.Background(), &testpb.SlowRequest{Millis: 1}); err != nil {
		t.Errorf("a call no rule covers failed while the budget was full: %v", err)
	}
	if n := len(sc.CP.Records()); n != 0 {
		t.Fatalf("refused calls filed %d approval request(s)", n)
	}
	others.Release()
	denied(t, unaryItem(c, &testpb.Item{Blob: make([]byte, 256<<10)}))
	if up.Count("Unary") != 0 {
		t.Fatal("a held call reached the upstream")
	}
	if again, err := l.Held().Reserve(context.Background(), 1<<20); err != nil {
		t.Fatalf("the listener kept budget after the call was denied: %v", err)
	} else {
		again.Release()
	}
}

// Metadata over limits.header_bytes never reaches the gate or the upstream
// (the listener advertises the cap as SETTINGS_MAX_HEADER_LIST_SIZE, so a
// grpc-go client refuses to send it); the listener keeps serving.
func TestMetadataOverLimitIsRefused(t *testing.T) {
	up := startUpstream(t)
	sc := limitedSidecar(app.Limits{HeaderBytes: 16 << 10})
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr})
	c := probeClient(t, addr, nil)
	if err := unaryItem(c, &testpb.Item{Name: "warm"}); err != nil {
		t.Fatal(err) // the client learns the server's settings
	}
	_, _, err := unary(t, c, "big", "x-big", strings.Repeat("m", 64<<10))
	if err == nil || !strings.Contains(err.Error(), "header list size") {
		t.Fatalf("64 KiB of metadata: %v, want a header list size error", err)
	}
	if up.Count("Unary") != 1 {
		t.Fatalf("upstream saw %d Unary calls, want 1", up.Count("Unary"))
	}
	if _, _, err := unary(t, c, "small", "x-small", "ok"); err != nil {
		t.Fatalf("next call: %v", err)
	}
}

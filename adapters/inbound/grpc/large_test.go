package grpclistener_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/conformance/grpc/testpb"
	"github.com/hoophq/sidecar/domain"
)

// Messages larger than a stream's flow-control window cross the relay
// whole in both directions: an allowed call's, and a held call's once
// approved (its first message was read before the gate decided).
func TestLargeMessagesBothWays(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr})
	c := probeClient(t, addr, nil)
	// 3 MiB: over the stream window, under MaxHeldMessage and the client's
	// 4 MiB limit for the echoed reply.
	blob := bytes.Repeat([]byte("0123456789abcdef"), 3<<16)
	call := func(name string) (*testpb.Reply, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ctx = metadata.NewOutgoingContext(ctx, metadata.Pairs("x-hoop-approval", "return"))
		return c.Unary(ctx, &testpb.Item{Name: name, Blob: blob})
	}
	if r, err := call("big"); err != nil || !bytes.Equal(r.GetBlob(), blob) {
		t.Fatalf("allowed 3 MiB call: %v (%d bytes back)", err, len(r.GetBlob()))
	}
	sc2 := newSidecar(true)
	addr2, _ := sc2.serve(t, app.ListenerSettings{Name: "h", Upstream: up.Addr,
		Approvals: []domain.ApprovalRule{rule(t, "held", unaryMethod)}})
	c = probeClient(t, addr2, nil)
	denied(t, func() error { _, err := call("held"); return err }())
	recs := sc2.CP.Records()
	if len(recs) != 1 {
		t.Fatalf("%d approval requests", len(recs))
	}
	if err := sc2.CP.Decide(recs[0].ID, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	if r, err := call("held"); err != nil || !bytes.Equal(r.GetBlob(), blob) {
		t.Fatalf("approved 3 MiB call: %v (%d bytes back)", err, len(r.GetBlob()))
	}
}

// Denied client streams whose later messages were still queued when the
// gate said no give their bytes back to the connection's window: after more
// than a connection window of them, the connection still carries calls.
func TestDeniedStreamsKeepTheConnectionWindow(t *testing.T) {
	up := startUpstream(t)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr,
		Approvals: []domain.ApprovalRule{rule(t, "held", "/hoop.probe.v1.Probe/Upload")}})
	c := probeClient(t, addr, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ctx = metadata.NewOutgoingContext(ctx, metadata.Pairs("x-hoop-approval", "return"))
	blob := make([]byte, 256<<10)
	for range 40 { // 40 × up to 256 KiB (the stream window) queued > the 8 MiB connection window
		s, err := c.Upload(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_ = s.Send(&testpb.Item{Name: "first"})
		for range 4 {
			if s.Send(&testpb.Item{Blob: blob}) != nil {
				break
			}
		}
		_, err = s.CloseAndRecv()
		denied(t, err)
	}
	big := bytes.Repeat([]byte{7}, 3<<20)
	if r, err := c.Unary(ctx, &testpb.Item{Name: "after", Blob: big}); err != nil || len(r.GetBlob()) != len(big) {
		t.Fatalf("a call after the denied streams: %v", err)
	}
}

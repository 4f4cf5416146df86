package grpcconformance

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/hoophq/sidecar/conformance/grpc/testpb"
	"github.com/hoophq/sidecar/conformance/grpc/upstream"
)

// Request metadata reaches the upstream (text and binary); the upstream's
// headers and trailers reach the client; x-hoop-approval stays at the
// listener.
func TestMetadataRelayedBothWays(t *testing.T) {
	w := newWorld(t)
	c := client(t, w.listen(t, listener{Name: "open"}))
	md := metadata.Pairs("x-echo-team", "payments", "x-echo-blob-bin", "\x00\x01\xff", "x-hoop-approval", "return")
	var hdr, tr metadata.MD
	if _, err := c.Unary(metadata.NewOutgoingContext(ctx(t), md), &testpb.Item{Name: "m"}, grpc.Header(&hdr), grpc.Trailer(&tr)); err != nil {
		t.Fatal(err)
	}
	seen := w.up.Metadata("Unary")[0]
	if first(seen, "x-echo-team") != "payments" || first(seen, "x-echo-blob-bin") != "\x00\x01\xff" {
		t.Errorf("upstream saw %v", seen)
	}
	if len(seen.Get("x-hoop-approval")) != 0 {
		t.Errorf("x-hoop-approval was forwarded upstream: %v", seen)
	}
	if first(hdr, "x-echo-team") != "payments" || first(hdr, "x-echo-blob-bin") != "\x00\x01\xff" {
		t.Errorf("response headers %v", hdr)
	}
	if first(tr, "trailer-x-echo-team") != "payments" || first(tr, "trailer-x-echo-blob-bin") != "\x00\x01\xff" {
		t.Errorf("response trailers %v", tr)
	}
}

// An upstream error keeps its code, message, details and trailers.
func TestStatusDetailsAndTrailersRelayed(t *testing.T) {
	w := newWorld(t)
	c := client(t, w.listen(t, listener{Name: "open"}))
	var tr metadata.MD
	_, err := c.Fail(ctx(t), &testpb.FailRequest{Message: "ledger closed"}, grpc.Trailer(&tr))
	st := status.Convert(err)
	if st.Code() != codes.FailedPrecondition || st.Message() != "ledger closed" {
		t.Fatalf("status %v", st)
	}
	var info *errdetails.ErrorInfo
	for _, d := range st.Details() {
		if e, ok := d.(*errdetails.ErrorInfo); ok {
			info = e
		}
	}
	if info == nil || info.GetReason() != "PROBE_FAILED" || info.GetMetadata()["message"] != "ledger closed" {
		t.Errorf("details %v", st.Details())
	}
	if first(tr, "x-fail-trailer") != "kept" || first(tr, "x-fail-bin") != string([]byte{0, 1, 2, 255}) {
		t.Errorf("trailers %v", tr)
	}
}

// A client deadline of 200 ms on a slow upstream method ends the call with
// DEADLINE_EXCEEDED and ends the upstream's work: it sees its context end.
func TestDeadlinePropagates(t *testing.T) {
	w := newWorld(t)
	c := client(t, w.listen(t, listener{Name: "open"}))
	dctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Slow(dctx, &testpb.SlowRequest{Millis: 0})
	took := time.Since(start)
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("error %v, want DEADLINE_EXCEEDED", err)
	}
	if took > 2*time.Second {
		t.Errorf("the call took %v with a 200 ms deadline", took)
	}
	upErr, ok := w.up.SlowEnded(2 * time.Second)
	if !ok {
		t.Fatal("the upstream's Slow call did not end after the client's deadline")
	}
	if !errors.Is(upErr, context.DeadlineExceeded) && !errors.Is(upErr, context.Canceled) {
		t.Fatalf("upstream ended with %v, want its context cancelled", upErr)
	}
}

// A client that cancels a call cancels the upstream's call.
func TestCancellationPropagates(t *testing.T) {
	w := newWorld(t)
	c := client(t, w.listen(t, listener{Name: "open"}))
	cctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Slow(cctx, &testpb.SlowRequest{Millis: 0})
		errc <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for w.up.Count("Slow") == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if w.up.Count("Slow") == 0 {
		t.Fatal("the Slow call never reached the upstream")
	}
	cancel()
	select {
	case err := <-errc:
		if status.Code(err) != codes.Canceled {
			t.Errorf("client error %v, want CANCELLED", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call did not end")
	}
	upErr, ok := w.up.SlowEnded(2 * time.Second)
	if !ok || !errors.Is(upErr, context.Canceled) {
		t.Fatalf("upstream ended=%v with %v, want context.Canceled", ok, upErr)
	}
}

// A 32 MiB server stream arrives byte-identical, in 1 MiB+13 messages and in
// 8 MiB messages (above gRPC's 4 MiB default message limit).
func TestLargeServerStreamByteIdentical(t *testing.T) {
	w := newWorld(t)
	c := client(t, w.listen(t, listener{Name: "open"}))
	const total = 32 << 20
	want := sha256.Sum256(upstream.Bytes(42, total))
	for _, chunk := range []int64{1<<20 + 13, 8 << 20} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			s, err := c.Download(ctx(t), &testpb.DownloadRequest{TotalBytes: total, ChunkBytes: chunk, Seed: 42})
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			msgs := 0
			for {
				r, err := s.Recv()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("after %d bytes: %v", got.Len(), err)
				}
				if r.GetCount() != int64(got.Len()) {
					t.Fatalf("message %d starts at offset %d, want %d", msgs, r.GetCount(), got.Len())
				}
				got.Write(r.GetBlob())
				msgs++
			}
			if got.Len() != total || sha256.Sum256(got.Bytes()) != want {
				t.Fatalf("received %d bytes in %d messages, not the upstream's %d bytes", got.Len(), msgs, total)
			}
		})
	}
}

// The standard health service passes through.
func TestHealthPassesThrough(t *testing.T) {
	w := newWorld(t)
	addr := w.listen(t, listener{Name: "probe", Rules: []rule{probeAll}})
	r, err := healthpb.NewHealthClient(dial(t, addr)).Check(ctx(t), &healthpb.HealthCheckRequest{Service: "hoop.probe.v1.Probe"})
	if err != nil || r.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health: %v %v", r, err)
	}
}

// In wait mode a held call waits; when the approver approves, the same call
// goes on to the upstream, once.
func TestWaitModeCallGoesOnWhenApproved(t *testing.T) {
	w := newWorld(t)
	c := client(t, w.listen(t, listener{Name: "probe", Rules: []rule{probeAll}}))
	type result struct {
		r   *testpb.Reply
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := c.Unary(ctx(t), &testpb.Item{Name: "waiter"})
		done <- result{r, err}
	}()
	var id string
	deadline := time.Now().Add(5 * time.Second)
	for id == "" && time.Now().Before(deadline) {
		if recs := w.reviews(t); len(recs) > 0 {
			id = recs[0].ID
		}
		time.Sleep(10 * time.Millisecond)
	}
	if id == "" {
		t.Fatal("no approval request was filed for the waiting call")
	}
	select {
	case r := <-done:
		t.Fatalf("the held call ended before a decision: %v %v", r.r, r.err)
	default:
	}
	w.approve(t, id)
	r := <-done
	if r.err != nil || r.r.GetText() != "hello waiter" {
		t.Fatalf("approved call: %v %v", r.r, r.err)
	}
	if n := w.up.Count("Unary"); n != 1 {
		t.Errorf("upstream saw %d calls, want 1", n)
	}
}

// A listener in return mode denies at once without the metadata.
func TestListenerDefaultReturnMode(t *testing.T) {
	w := newWorld(t)
	c := client(t, w.listen(t, listener{Name: "probe", Mode: "return", Rules: []rule{probeAll}}))
	var tr metadata.MD
	_, err := c.Unary(ctx(t), &testpb.Item{Name: "r"}, grpc.Trailer(&tr))
	heldDenial(t, err, tr, "PENDING", true)
}

package grpcconformance

import (
	"context"
	"errors"
	"io"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/hoophq/sidecar/conformance/grpc/testpb"
)

// Each call kind through a listener that no rule holds: the upstream answers
// and counts one call.
func TestFourCallKindsPass(t *testing.T) {
	w := newWorld(t)
	c := client(t, w.listen(t, listener{Name: "open"}))

	r, err := c.Unary(ctx(t), &testpb.Item{Name: "alice", Amount: 7})
	if err != nil || r.GetText() != "hello alice" || r.GetCount() != 7 {
		t.Fatalf("unary: %v %v", r, err)
	}
	if got := download(t, c, 1000, 300); got != 1000 {
		t.Fatalf("server streaming: %d bytes", got)
	}
	if r, err := upload(t, c, metadata.MD{}, "a", "b", "c"); err != nil || r.GetText() != "a,b,c" || r.GetCount() != 3 {
		t.Fatalf("client streaming: %v %v", r, err)
	}
	if got, err := chat(t, c, metadata.MD{}, "x", "y"); err != nil || len(got) != 2 || got[1] != "re: y" {
		t.Fatalf("bidi: %v %v", got, err)
	}
	for _, m := range []string{"Unary", "Download", "Upload", "Chat"} {
		if n := w.up.Count(m); n != 1 {
			t.Errorf("upstream saw %d %s calls, want 1", n, m)
		}
	}
}

// Each call kind held (return mode per call): PERMISSION_DENIED with the
// spec's message and trailers and nothing upstream; after approval the
// identical resend reaches the upstream exactly once; the next identical
// send is held again with a new approval request.
func TestFourCallKindsHeldThenApprovedOnce(t *testing.T) {
	w := newWorld(t)
	c := client(t, w.listen(t, listener{Name: "probe", Rules: []rule{probeAll}}))
	rctx := func() context.Context { return metadata.NewOutgoingContext(ctx(t), returnMode) }

	kinds := []struct {
		method string
		call   func() (metadata.MD, error)
		check  func(t *testing.T)
	}{
		{"Unary", func() (metadata.MD, error) {
			var tr metadata.MD
			r, err := c.Unary(rctx(), &testpb.Item{Name: "bob", Amount: 1}, grpc.Trailer(&tr))
			if err == nil && r.GetText() != "hello bob" {
				t.Errorf("unary reply %v", r)
			}
			return tr, err
		}, nil},
		{"Download", func() (metadata.MD, error) {
			s, err := c.Download(rctx(), &testpb.DownloadRequest{TotalBytes: 10, ChunkBytes: 4, Seed: 1})
			if err != nil {
				return nil, err
			}
			n := 0
			for {
				r, err := s.Recv()
				if errors.Is(err, io.EOF) {
					if n != 10 {
						t.Errorf("download got %d bytes", n)
					}
					return s.Trailer(), nil
				}
				if err != nil {
					return s.Trailer(), err
				}
				n += len(r.GetBlob())
			}
		}, nil},
		{"Upload", func() (metadata.MD, error) {
			r, err := uploadCtx(rctx(), c, "p", "q")
			if err == nil && r.reply.GetText() != "p,q" {
				t.Errorf("upload reply %v", r.reply)
			}
			return r.trailer, err
		}, nil},
		{"Chat", func() (metadata.MD, error) {
			got, tr, err := chatCtx(rctx(), c, "hi", "there")
			if err == nil && (len(got) != 2 || got[0] != "re: hi") {
				t.Errorf("chat replies %v", got)
			}
			return tr, err
		}, nil},
	}
	for _, k := range kinds {
		t.Run(k.method, func(t *testing.T) {
			tr, err := k.call()
			id := heldDenial(t, err, tr, "PENDING", true)
			tr, err = k.call() // the same call before a decision reuses the request
			if again := heldDenial(t, err, tr, "PENDING", true); again != id {
				t.Errorf("resend before approval filed %s, want the same %s", again, id)
			}
			if n := w.up.Count(k.method); n != 0 {
				t.Fatalf("held %s reached the upstream %d times", k.method, n)
			}
			w.approve(t, id)
			if _, err := k.call(); err != nil {
				t.Fatalf("approved resend: %v", err)
			}
			if n := w.up.Count(k.method); n != 1 {
				t.Fatalf("approved resend reached the upstream %d times, want exactly 1", n)
			}
			if st := w.status(t, id); st != "EXECUTED" {
				t.Errorf("approval %s is %s after the resend, want EXECUTED", id, st)
			}
			tr, err = k.call()
			if next := heldDenial(t, err, tr, "PENDING", true); next == id {
				t.Errorf("a send after the approval was used reused %s", id)
			}
			if n := w.up.Count(k.method); n != 1 {
				t.Errorf("upstream count %d after the spent approval, want 1", n)
			}
		})
	}
}

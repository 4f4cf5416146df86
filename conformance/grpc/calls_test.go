package grpcconformance

import (
	"context"
	"errors"
	"io"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/hoophq/sidecar/conformance/grpc/testpb"
)

// download reads a whole Download of total bytes in chunks and returns how
// many bytes arrived.
func download(t *testing.T, c testpb.ProbeClient, total, chunk int64) int {
	t.Helper()
	s, err := c.Download(ctx(t), &testpb.DownloadRequest{TotalBytes: total, ChunkBytes: chunk, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		r, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatalf("download: %v", err)
		}
		n += len(r.GetBlob())
	}
}

type uploadResult struct {
	reply   *testpb.Reply
	trailer metadata.MD
}

// upload sends one Item per name (amount 1 each), half-closes and returns the
// reply.
func upload(t *testing.T, c testpb.ProbeClient, md metadata.MD, names ...string) (*testpb.Reply, error) {
	t.Helper()
	r, err := uploadCtx(metadata.NewOutgoingContext(ctx(t), md), c, names...)
	return r.reply, err
}

func uploadCtx(ctx context.Context, c testpb.ProbeClient, names ...string) (uploadResult, error) {
	s, err := c.Upload(ctx)
	if err != nil {
		return uploadResult{}, err
	}
	for _, n := range names {
		// io.EOF: the server ended the call; its status comes from CloseAndRecv.
		if err := s.Send(&testpb.Item{Name: n, Amount: 1}); err != nil {
			break
		}
	}
	r, err := s.CloseAndRecv()
	return uploadResult{reply: r, trailer: s.Trailer()}, err
}

// chat sends each name and reads its reply before sending the next (a
// conversation), then half-closes; it returns the reply texts.
func chat(t *testing.T, c testpb.ProbeClient, md metadata.MD, names ...string) ([]string, error) {
	t.Helper()
	got, _, err := chatCtx(metadata.NewOutgoingContext(ctx(t), md), c, names...)
	return got, err
}

func chatCtx(ctx context.Context, c testpb.ProbeClient, names ...string) ([]string, metadata.MD, error) {
	s, err := c.Chat(ctx)
	if err != nil {
		return nil, nil, err
	}
	var got []string
	for _, n := range names {
		if err := s.Send(&testpb.Item{Name: n}); err != nil && !errors.Is(err, io.EOF) {
			return got, s.Trailer(), err
		}
		r, err := s.Recv()
		if err != nil {
			return got, s.Trailer(), err
		}
		got = append(got, r.GetText())
	}
	if err := s.CloseSend(); err != nil {
		return got, s.Trailer(), err
	}
	if _, err := s.Recv(); !errors.Is(err, io.EOF) {
		return got, s.Trailer(), err
	}
	return got, s.Trailer(), nil
}

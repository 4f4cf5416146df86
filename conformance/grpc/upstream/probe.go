package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/hoophq/sidecar/conformance/grpc/testpb"
)

type probe struct {
	testpb.UnimplementedProbeServer
	s *Server
}

func (p *probe) seen(ctx context.Context, method string) metadata.MD {
	md, _ := metadata.FromIncomingContext(ctx)
	p.s.record(method, md)
	return md
}

// echoes returns the x-echo-* pairs of md (sent back in headers and trailers).
func echoes(md metadata.MD) metadata.MD {
	out := metadata.MD{}
	for k, v := range md {
		if strings.HasPrefix(k, "x-echo-") {
			out[k] = v
		}
	}
	return out
}

func (p *probe) Unary(ctx context.Context, in *testpb.Item) (*testpb.Reply, error) {
	md := p.seen(ctx, "Unary")
	e := echoes(md)
	if len(e) > 0 {
		_ = grpc.SetHeader(ctx, e)
		tr := metadata.MD{}
		for k, v := range e {
			tr["trailer-"+k] = v
		}
		_ = grpc.SetTrailer(ctx, tr)
	}
	return &testpb.Reply{Text: "hello " + in.GetName(), Count: in.GetAmount(), Blob: in.GetBlob()}, nil
}

// Bytes returns the n deterministic bytes Download sends for seed.
func Bytes(seed uint64, n int64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := int64(0); i < n; i += 8 {
		v := r.Uint64()
		for j := int64(0); j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

func (p *probe) Download(in *testpb.DownloadRequest, ss grpc.ServerStreamingServer[testpb.Reply]) error {
	p.seen(ss.Context(), "Download")
	chunk := in.GetChunkBytes()
	if chunk <= 0 {
		chunk = 1 << 20
	}
	all := Bytes(in.GetSeed(), in.GetTotalBytes())
	for i := int64(0); i < int64(len(all)); i += chunk {
		end := min(i+chunk, int64(len(all)))
		if err := ss.Send(&testpb.Reply{Count: i, Blob: all[i:end]}); err != nil {
			return err
		}
	}
	return nil
}

func (p *probe) Upload(ss grpc.ClientStreamingServer[testpb.Item, testpb.Reply]) error {
	p.seen(ss.Context(), "Upload")
	var names []string
	var sum int64
	for {
		it, err := ss.Recv()
		if errors.Is(err, io.EOF) {
			return ss.SendAndClose(&testpb.Reply{Text: strings.Join(names, ","), Count: sum})
		}
		if err != nil {
			return err
		}
		names = append(names, it.GetName())
		sum += it.GetAmount()
	}
}

func (p *probe) Chat(ss grpc.BidiStreamingServer[testpb.Item, testpb.Reply]) error {
	p.seen(ss.Context(), "Chat")
	n := int64(0)
	for {
		it, err := ss.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		n++
		if err := ss.Send(&testpb.Reply{Text: "re: " + it.GetName(), Count: n}); err != nil {
			return err
		}
	}
}

func (p *probe) Slow(ctx context.Context, in *testpb.SlowRequest) (*testpb.Reply, error) {
	p.seen(ctx, "Slow")
	var done <-chan time.Time
	if in.GetMillis() > 0 {
		done = time.After(time.Duration(in.GetMillis()) * time.Millisecond)
	}
	select {
	case <-ctx.Done():
		p.s.slowErrs <- ctx.Err()
		return nil, status.FromContextError(ctx.Err()).Err()
	case <-done:
		p.s.slowErrs <- nil
		return &testpb.Reply{Text: "done"}, nil
	}
}

// Fail ends the call with FAILED_PRECONDITION and details, or with INTERNAL
// when the message is "internal".
func (p *probe) Fail(ctx context.Context, in *testpb.FailRequest) (*testpb.Reply, error) {
	p.seen(ctx, "Fail")
	_ = grpc.SetTrailer(ctx, metadata.Pairs("x-fail-trailer", "kept", "x-fail-bin", string([]byte{0, 1, 2, 255})))
	code := codes.FailedPrecondition
	if in.GetMessage() == "internal" { // a failure while running, for spend_approval_on tests
		code = codes.Internal
	}
	st, err := status.New(code, in.GetMessage()).WithDetails(&errdetails.ErrorInfo{
		Reason: "PROBE_FAILED", Domain: "probe.hoop.test", Metadata: map[string]string{"message": in.GetMessage()}})
	if err != nil {
		return nil, fmt.Errorf("details: %w", err)
	}
	return nil, st.Err()
}

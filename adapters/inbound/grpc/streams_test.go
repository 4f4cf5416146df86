package grpclistener_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/conformance/grpc/testpb"
)

// slowProbe answers Unary after a short pause, so calls overlap.
type slowProbe struct{ benchProbe }

func (p slowProbe) Unary(ctx context.Context, in *testpb.Item) (*testpb.Reply, error) {
	time.Sleep(20 * time.Millisecond)
	return p.benchProbe.Unary(ctx, in)
}

// An upstream that takes fewer concurrent calls than a client sends on one
// connection (SETTINGS_MAX_CONCURRENT_STREAMS): the client is told the
// upstream's limit, calls over it are refused unprocessed and sent again by
// the client, and every call succeeds.
func TestUpstreamConcurrencyLimit(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.MaxConcurrentStreams(2))
	testpb.RegisterProbeServer(srv, slowProbe{})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: ln.Addr().String()})
	c := probeClient(t, addr, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := c.Unary(ctx, &testpb.Item{Name: "x"})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("call: %v", err)
		}
	}
}

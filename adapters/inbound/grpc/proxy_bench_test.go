package grpclistener_test

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	grpclistener "github.com/hoophq/sidecar/adapters/inbound/grpc"
	"github.com/hoophq/sidecar/adapters/outbound/metrics"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/conformance/grpc/testpb"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/ports"
)

// benchProbe answers Unary only, keeping nothing per call.
type benchProbe struct {
	testpb.UnimplementedProbeServer
}

func (benchProbe) Unary(_ context.Context, in *testpb.Item) (*testpb.Reply, error) {
	return &testpb.Reply{Text: "hello " + in.GetName(), Count: in.GetAmount()}, nil
}

// BenchmarkAllowedUnary measures a unary call that no rule holds (the hot
// path: the gate on the method name, then the relay) through an in-process
// grpc listener without a Control Plane, against the same call sent
// straight to the upstream in the same benchmark. ns/op, B/op and allocs/op
// are the listener's path (client and upstream included); direct-ns/op is
// the direct path and sidecar/direct the ratio. "serial" is one call at a
// time, "parallel16" sixteen on one client connection.
//
//	go test -run '^$' -bench AllowedUnary -benchmem ./adapters/inbound/grpc/
func BenchmarkAllowedUnary(b *testing.B) {
	upAddr := benchUpstream(b)
	m := domain.Match{Actions: []string{"CALL"}, Targets: []string{"/hoop.probe.v1.Probe/Upload", "/admin.*/**"}}
	if err := m.Compile(); err != nil {
		b.Fatal(err)
	}
	scAddr := benchListener(b, app.ListenerSettings{Name: "rpc", Protocol: "grpc", Upstream: upAddr,
		Mode: app.ModeReturn, SpendOn: ports.SpendOnSent, Approvals: []domain.ApprovalRule{{Name: "uploads", Match: m}}})
	direct, sidecar := benchClient(b, upAddr), benchClient(b, scAddr)
	for _, conc := range []struct {
		name string
		n    int
	}{{"serial", 1}, {"parallel16", 16}} {
		b.Run(conc.name, func(b *testing.B) {
			unaryN(b, direct, 100, conc.n) // warm both connections
			unaryN(b, sidecar, 100, conc.n)
			b.ReportAllocs()
			b.ResetTimer()
			b.StopTimer()
			t0 := time.Now()
			unaryN(b, direct, b.N, conc.n)
			d := time.Since(t0)
			b.StartTimer()
			t1 := time.Now()
			unaryN(b, sidecar, b.N, conc.n)
			s := time.Since(t1)
			b.StopTimer()
			b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "direct-ns/op")
			b.ReportMetric(float64(s)/float64(d), "sidecar/direct")
		})
	}
}

// unaryN makes n Unary calls over conc goroutines and fails b on any error.
func unaryN(b *testing.B, c testpb.ProbeClient, n, conc int) {
	listenertest.RunN(b, n, conc, func() error {
		_, err := c.Unary(context.Background(), &testpb.Item{Name: "bench", Amount: 7})
		return err
	})
}

// benchUpstream serves benchProbe on 127.0.0.1:0 until b ends.
func benchUpstream(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := grpc.NewServer()
	testpb.RegisterProbeServer(srv, benchProbe{})
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(srv.Stop)
	return ln.Addr().String()
}

// benchListener serves a grpc listener with settings s on 127.0.0.1:0 on a
// core without a Control Plane until b ends, and returns its address.
func benchListener(b *testing.B, s app.ListenerSettings) string {
	b.Helper()
	core := app.NewCore(app.CoreOptions{Sidecar: "bench", Metrics: metrics.New()})
	return listenertest.Serve(b, grpclistener.New(nil), core.Listener(s))
}

func benchClient(b *testing.B, addr string) testpb.ProbeClient {
	b.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cc.Close() })
	return testpb.NewProbeClient(cc)
}

package grpclistener_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	grpclistener "github.com/hoophq/sidecar/adapters/inbound/grpc"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/conformance/grpc/testpb"
	"github.com/hoophq/sidecar/conformance/grpc/upstream"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/ports"
)

// downCP is the in-memory Control Plane with an off switch.
type downCP struct {
	*fakecp.CP
	down atomic.Bool
}

func (c *downCP) File(ctx context.Context, r ports.FileRequest) (ports.Filed, error) {
	if c.down.Load() {
		return ports.Filed{}, ports.ErrUnavailable
	}
	return c.CP.File(ctx, r)
}

// sidecar is one core ("test") on the fake Control Plane (CP nil: none).
type sidecar struct{ *listenertest.Sidecar[*downCP] }

func newSidecar(withCP bool) *sidecar {
	return &sidecar{listenertest.NewSidecar(withCP, newDownCP, app.Limits{})}
}

// limitedSidecar is newSidecar(true) with memory limits l.
func limitedSidecar(l app.Limits) *sidecar {
	return &sidecar{listenertest.NewSidecar(true, newDownCP, l)}
}

func newDownCP() *downCP { return &downCP{CP: fakecp.New(nil)} }

// serve starts a grpc listener with settings ls (protocol, mode and spend
// defaulted) on 127.0.0.1:0; it returns the address and the running listener.
func (s *sidecar) serve(t *testing.T, ls app.ListenerSettings) (string, *app.Listener) {
	t.Helper()
	ls.Protocol = "grpc"
	if ls.Mode == "" {
		ls.Mode = app.ModeReturn
	}
	if ls.SpendOn == "" {
		ls.SpendOn = ports.SpendOnSent
	}
	l := s.Core.Listener(ls)
	return listenertest.Serve(t, grpclistener.New(nil), l), l
}

// rule returns an approval rule named name holding the given method globs.
func rule(t *testing.T, name string, targets ...string) domain.ApprovalRule {
	t.Helper()
	m := domain.Match{Actions: []string{"CALL"}, Targets: targets}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	return domain.ApprovalRule{Name: name, Match: m}
}

func probeClient(t *testing.T, addr string, creds credentials.TransportCredentials) testpb.ProbeClient {
	t.Helper()
	if creds == nil {
		creds = insecure.NewCredentials()
	}
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return testpb.NewProbeClient(cc)
}

// unary calls Unary with metadata pairs kv and returns the reply, the
// trailer and the error.
func unary(t *testing.T, c testpb.ProbeClient, name string, kv ...string) (*testpb.Reply, metadata.MD, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var tr metadata.MD
	r, err := c.Unary(metadata.NewOutgoingContext(ctx, metadata.Pairs(kv...)), &testpb.Item{Name: name}, grpc.Trailer(&tr))
	return r, tr, err
}

func denied(t *testing.T, err error) *status.Status {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.PermissionDenied {
		t.Fatalf("error %v, want PERMISSION_DENIED", err)
	}
	return st
}

func get(md metadata.MD, k string) string {
	if v := md.Get(k); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (s *sidecar) record(t *testing.T, id string) fakecp.Record {
	t.Helper()
	for _, r := range s.CP.Records() {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no approval %s", id)
	return fakecp.Record{}
}

func startUpstream(t *testing.T) *upstream.Server { return upstream.Start(t, upstream.Options{}) }

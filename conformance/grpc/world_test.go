package grpcconformance

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	grpclistener "github.com/hoophq/sidecar/adapters/inbound/grpc"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/conformance/grpc/testpb"
	"github.com/hoophq/sidecar/conformance/grpc/upstream"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// probeAll holds every method of the Probe test service; health and
// reflection are not held.
var probeAll = rule{Name: "probe-approvers", Targets: []string{"/hoop.probe.v1.Probe/*"}}

// rule is one approval rule: its name and the method globs it holds.
type rule struct {
	Name    string
	Targets []string
}

// world is one Sidecar ("test") with its Control Plane and one upstream.
type world struct {
	cp   *fakecp.CP
	core *app.Core
	up   *upstream.Server
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{cp: fakecp.New(nil), up: upstream.Start(t, upstream.Options{})}
	w.core = app.NewCore(app.CoreOptions{Sidecar: "test", CP: w.cp})
	w.core.Watcher.Interval = 50 * time.Millisecond
	return w
}

// listener describes one grpc listener in front of the world's upstream.
type listener struct {
	Name  string
	Mode  app.Mode // default wait
	Rules []rule
}

// listen starts a grpc listener on 127.0.0.1:0 and returns its address; it
// stops with the test.
func (w *world) listen(t *testing.T, l listener) string {
	t.Helper()
	s := app.ListenerSettings{Name: l.Name, Protocol: "grpc", Upstream: w.up.Addr, Mode: l.Mode,
		SpendOn: ports.SpendOnSent, WaitTimeout: time.Minute}
	if s.Mode == "" {
		s.Mode = app.ModeWait
	}
	for _, r := range l.Rules {
		m := domain.Match{Actions: []string{"CALL"}, Targets: r.Targets}
		if err := m.Compile(); err != nil {
			t.Fatal(err)
		}
		s.Approvals = append(s.Approvals, domain.ApprovalRule{Name: r.Name, Match: m})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := grpclistener.New(nil).Serve(ctx, ln, w.core.Listener(s)); err != nil {
			t.Errorf("listener %s: %v", l.Name, err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// approve is the approver approving id in the Control Plane.
func (w *world) approve(t *testing.T, id string) {
	t.Helper()
	if err := w.cp.Decide(id, domain.StatusApproved, ""); err != nil {
		t.Fatalf("approve %s: %v", id, err)
	}
}

// status is the Control Plane's status of id.
func (w *world) status(t *testing.T, id string) domain.Status {
	t.Helper()
	for _, r := range w.cp.Records() {
		if r.ID == id {
			return r.Status
		}
	}
	t.Fatalf("no approval request %s", id)
	return ""
}

// client dials addr in plaintext (h2c) and returns a Probe client; the
// connection closes with the test.
func client(t *testing.T, addr string) testpb.ProbeClient {
	t.Helper()
	return testpb.NewProbeClient(dial(t, addr))
}

func dial(t *testing.T, addr string) *grpc.ClientConn {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

// ctx returns a context that ends with the test (and after 30 s at most).
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

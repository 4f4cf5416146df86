package httpconformance

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	httplistener "github.com/hoophq/sidecar/adapters/inbound/http"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// world is one Sidecar with its Control Plane.
type world struct {
	cp   *switchableCP // nil: the Sidecar has no Control Plane
	core *app.Core
}

// newWorld starts a Sidecar named "test", with a Control Plane or without.
func newWorld(t *testing.T, withCP bool) *world {
	t.Helper()
	w := &world{}
	opts := app.CoreOptions{Sidecar: "test"}
	if withCP {
		w.cp = &switchableCP{CP: fakecp.New(nil)}
		opts.CP = w.cp
	}
	w.core = app.NewCore(opts)
	return w
}

// listener describes one http listener of the world.
type listener struct {
	Name     string
	Upstream string
	Mode     app.Mode
	SpendOn  ports.SpendOn
	// Rules: each approval rule is {name, actions, targets}.
	Rules []rule
}

type rule struct {
	Name             string
	Actions, Targets []string
}

// listen starts an http listener on 127.0.0.1:0 and returns its base URL
// ("http://127.0.0.1:port"); it stops with the test.
func (w *world) listen(t *testing.T, l listener) string {
	t.Helper()
	s := app.ListenerSettings{Name: l.Name, Protocol: "http", Upstream: l.Upstream, Mode: l.Mode,
		SpendOn: l.SpendOn, WaitTimeout: time.Minute}
	if s.Mode == "" {
		s.Mode = app.ModeWait
	}
	if s.SpendOn == "" {
		s.SpendOn = ports.SpendOnSent
	}
	for _, r := range l.Rules {
		m := domain.Match{Actions: r.Actions, Targets: r.Targets}
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
		if err := httplistener.New(nil).Serve(ctx, ln, w.core.Listener(s)); err != nil {
			t.Errorf("listener %s: %v", l.Name, err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

// approve is the approver approving id in the Control Plane.
func (w *world) approve(t *testing.T, id string) {
	t.Helper()
	if err := w.cp.Decide(id, domain.StatusApproved, ""); err != nil {
		t.Fatalf("approve %s: %v", id, err)
	}
}

// reject is the approver rejecting id with a reason.
func (w *world) reject(t *testing.T, id, reason string) {
	t.Helper()
	if err := w.cp.Decide(id, domain.StatusRejected, reason); err != nil {
		t.Fatalf("reject %s: %v", id, err)
	}
}

// stopControlPlane makes the Control Plane unreachable from now on.
func (w *world) stopControlPlane(t *testing.T) { w.cp.stopped.Store(true) }

// breakReads makes the Control Plane file requests without reporting their
// status and fail every read, so the Sidecar cannot learn the status.
func (w *world) breakReads(t *testing.T) { w.cp.readsFail.Store(true) }

// switchableCP is the in-memory Control Plane with an off switch.
type switchableCP struct {
	*fakecp.CP
	stopped   atomic.Bool
	readsFail atomic.Bool
}

func (c *switchableCP) File(ctx context.Context, r ports.FileRequest) (ports.Filed, error) {
	if c.stopped.Load() {
		return ports.Filed{}, ports.ErrUnavailable
	}
	f, err := c.CP.File(ctx, r)
	if c.readsFail.Load() {
		f.StatusKnown = false // an answer without a status: the Sidecar must read it
	}
	return f, err
}

func (c *switchableCP) Get(ctx context.Context, id string) (domain.Approval, error) {
	if c.stopped.Load() || c.readsFail.Load() {
		return domain.Approval{}, ports.ErrUnavailable
	}
	return c.CP.Get(ctx, id)
}

func (c *switchableCP) List(ctx context.Context, st domain.Status, limit int) ([]domain.Approval, error) {
	if c.stopped.Load() {
		return nil, ports.ErrUnavailable
	}
	return c.CP.List(ctx, st, limit)
}

func (c *switchableCP) Claim(ctx context.Context, id, fp string, s ports.SpendOn) (domain.Approval, bool, error) {
	if c.stopped.Load() {
		return domain.Approval{}, false, ports.ErrUnavailable
	}
	return c.CP.Claim(ctx, id, fp, s)
}

func (c *switchableCP) Settle(ctx context.Context, id string, accepted bool) (domain.Approval, error) {
	if c.stopped.Load() {
		return domain.Approval{}, ports.ErrUnavailable
	}
	return c.CP.Settle(ctx, id, accepted)
}

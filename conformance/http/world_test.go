package httpconformance

import (
	"context"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	httplistener "github.com/hoophq/sidecar/adapters/inbound/http"
	"github.com/hoophq/sidecar/adapters/outbound/controlplane"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/ports"
)

// The Sidecar names the suite's Control Planes know, with their tokens.
var sidecarTokens = map[string]string{"test": "test-sidecar-token", "other": "other-sidecar-token"}

// startControlPlane starts the reference Control Plane (the real
// cmd/controlplane binary, on a fresh store) knowing the Sidecars "test" and
// "other". apiVersion, when not nil, makes it claim that API version
// (0 = the header left out: a Control Plane older than the Sidecar).
func startControlPlane(t *testing.T, apiVersion *int) *harness.ControlPlane {
	t.Helper()
	return harness.StartControlPlane(t, harness.CPOptions{Sidecars: sidecarTokens, APIVersion: apiVersion})
}

// world is one Sidecar, in-process (the core, the http adapter and the real
// Control Plane client), talking to a reference Control Plane process.
type world struct {
	cp    *harness.ControlPlane // nil: the Sidecar has no Control Plane
	reads *readSwitch           // between the core and the Control Plane client
	core  *app.Core
	audit *auditLog // the Sidecar's audit trail
}

// auditLog keeps the decisions of the audit trail, in order.
type auditLog struct {
	mu        sync.Mutex
	decisions []string
}

func (a *auditLog) Record(e ports.AuditEvent) {
	a.mu.Lock()
	a.decisions = append(a.decisions, e.Decision)
	a.mu.Unlock()
}

func (a *auditLog) has(decision string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Contains(a.decisions, decision)
}

// newWorld starts the Sidecar named sidecar against cp (nil: no Control
// Plane block).
func newWorld(t *testing.T, cp *harness.ControlPlane, sidecar string) *world {
	t.Helper()
	w := &world{cp: cp, audit: &auditLog{}}
	opts := app.CoreOptions{Sidecar: sidecar, Audit: w.audit}
	if cp != nil {
		c, err := controlplane.New(controlplane.Options{URL: cp.URL, Timeout: 2 * time.Second,
			Token: controlplane.StaticToken(sidecarTokens[sidecar])})
		if err != nil {
			t.Fatal(err)
		}
		w.reads = &readSwitch{ControlPlane: c}
		opts.CP = w.reads
	}
	w.core = app.NewCore(opts)
	return w
}

// listener describes one http listener of the world.
type listener struct {
	Name     string
	Upstream string
	Mode     app.Mode
	Rules    []rule
	Masking  *masking.Set // the listener's masking rules (nil: none)
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
		SpendOn: ports.SpendOnSent, WaitTimeout: time.Minute, Masking: l.Masking}
	if s.Mode == "" {
		s.Mode = app.ModeWait
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

// approve is a person approving id with the Control Plane's CLI.
func (w *world) approve(t *testing.T, id string) { w.cp.Approve(t, id) }

// reject is a person rejecting id with the CLI, giving a reason.
func (w *world) reject(t *testing.T, id, reason string) { w.cp.Reject(t, id, reason) }

// stopControlPlane stops the Control Plane process.
func (w *world) stopControlPlane(t *testing.T) { w.cp.Stop() }

// breakReads makes the Sidecar see filing answers without a status and
// failing reads (a Control Plane that files asynchronously and then cannot
// be read), so it cannot learn the status of what it filed.
func (w *world) breakReads(t *testing.T) { w.reads.broken.Store(true) }

// readSwitch passes every call to the Control Plane client; once broken,
// File answers without a status and Get fails as unavailable.
type readSwitch struct {
	ports.ControlPlane
	broken atomic.Bool
}

func (r *readSwitch) File(ctx context.Context, req ports.FileRequest) (ports.Filed, error) {
	f, err := r.ControlPlane.File(ctx, req)
	if r.broken.Load() {
		f.StatusKnown = false
	}
	return f, err
}

func (r *readSwitch) Get(ctx context.Context, id string) (domain.Approval, error) {
	if r.broken.Load() {
		return domain.Approval{}, ports.ErrUnavailable
	}
	return r.ControlPlane.Get(ctx, id)
}

package grpcconformance

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/hoophq/sidecar/conformance/grpc/testpb"
	"github.com/hoophq/sidecar/conformance/grpc/upstream"
	"github.com/hoophq/sidecar/conformance/harness"
)

// probeAll holds every method of the Probe test service; health and
// reflection are not held.
var probeAll = rule{Name: "probe-approvers", Targets: []string{"/hoop.probe.v1.Probe/*"}}

// rule is one approval rule: its name and the method globs it holds.
type rule struct {
	Name    string
	Targets []string
}

// sidecarToken is the token of the Sidecar "test" at the suite's Control Planes.
const sidecarToken = "test-sidecar-token"

// world is one reference Control Plane (the real cmd/controlplane binary on
// a fresh store) and one real upstream; listen starts Sidecars (the real
// cmd/sidecar binary, Sidecar "test") in front of that upstream.
type world struct {
	cp *harness.ControlPlane
	up *upstream.Server
	// sidecar is the process the last listen started (its output carries
	// the audit trail).
	sidecar *harness.Sidecar
}

func newWorld(t *testing.T) *world {
	t.Helper()
	return &world{
		cp: harness.StartControlPlane(t, harness.CPOptions{Sidecars: map[string]string{"test": sidecarToken}}),
		up: upstream.Start(t, upstream.Options{}),
	}
}

// listener describes one grpc listener in front of the world's upstream.
type listener struct {
	Name  string
	Mode  string // wait (default) or return
	Rules []rule
}

// listen starts a Sidecar process whose config has the one grpc listener l
// on a free loopback port, connected to the world's Control Plane, and
// returns the listener's address; the process stops with the test.
func (w *world) listen(t *testing.T, l listener) string {
	t.Helper()
	addr := harness.FreeAddr(t)
	if l.Mode == "" {
		l.Mode = "wait"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sidecar: test\ncontrol_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN}\naudit: {file: \"-\"}\n", w.cp.URL)
	var names []string
	if len(l.Rules) > 0 {
		b.WriteString("approval_rules:\n")
		for _, r := range l.Rules {
			fmt.Fprintf(&b, "  - {name: %s, match: {actions: [CALL], targets: [%s]}}\n", r.Name, quoted(r.Targets))
			names = append(names, r.Name)
		}
	}
	fmt.Fprintf(&b, "listeners:\n  - {name: %s, protocol: grpc, listen: %s, upstream: %s, mode: %s, wait_timeout: 1m, approval_rules: [%s]}\n",
		l.Name, addr, w.up.Addr, l.Mode, strings.Join(names, ", "))
	w.sidecar = harness.StartSidecar(t, harness.SidecarOptions{Config: b.String(), Token: sidecarToken})
	return addr
}

func quoted(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// approve is the approver approving id with the controlplane CLI.
func (w *world) approve(t *testing.T, id string) {
	t.Helper()
	w.cp.Approve(t, id)
}

// status is the Control Plane's status of id, as the approver reads it.
func (w *world) status(t *testing.T, id string) string {
	t.Helper()
	return w.cp.Review(t, id).Status
}

// reviews lists every approval request, newest first.
func (w *world) reviews(t *testing.T) []harness.Review {
	t.Helper()
	return w.cp.Reviews(t)
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

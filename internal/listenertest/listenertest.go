// Package listenertest runs a listener protocol in-process for the tests and
// benchmarks of protocol adapters: a core on a Control Plane fake (NewCore,
// NewSidecar), a listener serving on a random port (Serve), concurrent load
// for benchmarks (RunN), both ends of a loopback TCP connection (TCPPair),
// and a loopback server of any connection handler (ServeTCP).
package listenertest

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/ports"
)

// NewCore returns a core for Sidecar "test" deciding through cp (nil: no
// Control Plane) with memory limits l (zero fields: the defaults), whose
// watcher polls every 20 ms so that waits in tests end soon after a
// decision.
func NewCore(cp ports.ControlPlane, l app.Limits) *app.Core {
	core := app.NewCore(app.CoreOptions{Sidecar: "test", CP: cp, Limits: l})
	core.Watcher.Interval = 20 * time.Millisecond
	return core
}

// Sidecar is an in-process core and the Control Plane fake it decides
// through, for a protocol adapter's tests.
type Sidecar[C ports.ControlPlane] struct {
	// CP is the fake; its zero value when the Sidecar has no Control Plane.
	CP   C
	Core *app.Core
}

// NewSidecar returns a Sidecar deciding through the fake newCP makes, or
// without a Control Plane when withCP is false, with memory limits l. Its
// core is NewCore's.
func NewSidecar[C ports.ControlPlane](withCP bool, newCP func() C, l app.Limits) *Sidecar[C] {
	if !withCP {
		return &Sidecar[C]{Core: NewCore(nil, l)}
	}
	cp := newCP()
	return &Sidecar[C]{CP: cp, Core: NewCore(cp, l)}
}

// Serve serves protocol p for listener l on 127.0.0.1:0 until tb ends, then
// stops it, ends its drain at once (app.Listener.EndDrain) and reports an
// error if Serve returned one. It returns the bound
// address (host:port).
func Serve(tb testing.TB, p app.Protocol, l *app.Listener) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln, l) }()
	tb.Cleanup(func() {
		cancel()
		err := <-done
		l.EndDrain() // connections a test left open end now
		if err != nil {
			tb.Errorf("%s listener: Serve returned %v", p.Name(), err)
		}
	})
	return ln.Addr().String()
}

// RunN makes n calls of call over conc goroutines and fails tb with an
// error one of them returned (each goroutine stops at its first error).
func RunN(tb testing.TB, n, conc int, call func() error) {
	tb.Helper()
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	var failed atomic.Value
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				if err := call(); err != nil {
					failed.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		tb.Fatal(err)
	}
}

// Package listenertest runs a listener protocol in-process for the tests and
// benchmarks of protocol adapters.
package listenertest

import (
	"context"
	"net"
	"testing"

	"github.com/hoophq/sidecar/app"
)

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

package grpclistener_test

import (
	"context"
	"net"
	"testing"

	grpclistener "github.com/hoophq/sidecar/adapters/inbound/grpc"
	"github.com/hoophq/sidecar/app"
)

// serveStoppable serves l on 127.0.0.1:0 and returns the address and a stop
// function that cancels Serve's context and closes the listening socket, as
// the supervisor does, and waits for Serve to return.
func serveStoppable(t *testing.T, l *app.Listener) (string, func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- grpclistener.New(nil).Serve(ctx, ln, l) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		_ = ln.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}
	t.Cleanup(stop)
	return ln.Addr().String(), stop
}

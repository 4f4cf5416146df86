package hangup

import (
	"bufio"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/hoophq/sidecar/internal/listenertest"
)

// Closed tells an open, quiet connection (nil) from one whose peer closed
// it (io.EOF) or spoke unasked (ErrUnasked, the bytes kept for the
// reader), and leaves no deadline behind.
func TestClosed(t *testing.T) {
	near, _ := listenertest.TCPPair(t)
	r := bufio.NewReader(near)
	if err := Closed(r, near.SetReadDeadline); err != nil {
		t.Fatalf("open connection: %v, want nil", err)
	}

	near, far := listenertest.TCPPair(t)
	r = bufio.NewReader(near)
	far.Close()
	time.Sleep(10 * time.Millisecond) // the FIN arrives
	if err := Closed(r, near.SetReadDeadline); !errors.Is(err, io.EOF) {
		t.Fatalf("closed by the peer: %v, want io.EOF", err)
	}

	near, far = listenertest.TCPPair(t)
	r = bufio.NewReader(near)
	far.Write([]byte("bye"))
	time.Sleep(10 * time.Millisecond)
	if err := Closed(r, near.SetReadDeadline); !errors.Is(err, ErrUnasked) {
		t.Fatalf("peer sent bytes: %v, want ErrUnasked", err)
	}
	if b, _ := r.Peek(3); string(b) != "bye" {
		t.Fatalf("the peer's bytes were not kept: %q", b)
	}

	// No deadline is left: a read after the probe waits for the peer.
	near, far = listenertest.TCPPair(t)
	r = bufio.NewReader(near)
	if err := Closed(r, near.SetReadDeadline); err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(20 * time.Millisecond); far.Write([]byte("x")) }()
	if _, err := r.ReadByte(); err != nil {
		t.Fatalf("read after the probe: %v, want the peer's byte", err)
	}
}

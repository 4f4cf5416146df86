package listenertest

import (
	"net"
	"testing"
)

// TCPPair returns both ends of a loopback TCP connection (dialled, then
// accepted), closed when the test ends.
func TCPPair(tb testing.TB) (dialed, accepted net.Conn) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		acc <- c
	}()
	dialed, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	accepted = <-acc
	if accepted == nil {
		dialed.Close()
		tb.Fatal("accept failed")
	}
	tb.Cleanup(func() { dialed.Close(); accepted.Close() })
	return dialed, accepted
}

// ServeTCP listens on a loopback port until the test ends and runs handle
// on each accepted connection in a goroutine of its own, closing the
// connection when handle returns. It returns the address (host:port).
func ServeTCP(tb testing.TB, handle func(net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return ln.Addr().String()
}

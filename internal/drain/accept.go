package drain

import (
	"errors"
	"net"
	"syscall"
	"time"
)

// Accept accepts connections on ln and hands each to serve in a goroutine
// of its own until ln fails; it returns that error (net.ErrClosed once ln
// is closed). Temporary errors (a timeout, too many open files: EMFILE,
// ENFILE) are waited out as net/http's server does, from 5 ms doubling up
// to 1 s. TCP connections get TCP_NODELAY (Go's default, set again for
// wrappers that may have cleared it).
func Accept(ln net.Listener, serve func(net.Conn)) error {
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
		}
		go serve(c)
	}
}

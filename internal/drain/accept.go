package drain

import (
	"errors"
	"net"
	"syscall"
	"time"
)

// Accept accepts connections on ln and hands each to serve in a goroutine
// of its own until ln fails for good, and returns that error. A failed
// accept is waited out, from 5 ms doubling up to 1 s, when retry (nil:
// temporary errors only, as net/http's server does: a timeout, too many
// open files, EMFILE and ENFILE) says so; otherwise Accept returns the
// error (net.ErrClosed once ln is closed). TCP connections get TCP_NODELAY
// (Go's default, set again for wrappers that may have cleared it).
func Accept(ln net.Listener, serve func(net.Conn), retry func(error) bool) error {
	if retry == nil {
		retry = temporary
	}
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if !retry(err) {
				return err
			}
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			time.Sleep(delay)
			continue
		}
		delay = 0
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
		}
		go serve(c)
	}
}

// temporary reports whether a failed accept is worth another try.
func temporary(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

//go:build unix

package httplistener

import (
	"net"
	"syscall"
)

// connAlive reports whether c, idle on our side, is still open and has no
// unread bytes: a non-blocking MSG_PEEK read sees EAGAIN. End of stream, an
// error or unexpected bytes (the upstream answered nothing we asked) all
// mean the connection must not carry a request.
func connAlive(c net.Conn) bool {
	sc, ok := socketOf(c)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		alive = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
		return true // never wait for readiness
	})
	return err == nil && alive
}

// clientGone reports whether the peer of c closed or reset the connection:
// a non-blocking MSG_PEEK read sees end of stream or an error. Unread
// bytes (a pipelined request) and nothing yet both mean it is there.
func clientGone(c net.Conn) bool {
	sc, ok := socketOf(c)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	gone := false
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		gone = n == 0 && err == nil || err != nil && err != syscall.EAGAIN && err != syscall.EWOULDBLOCK && err != syscall.EINTR
		return true
	})
	return err != nil || gone
}

// socketOf returns the socket under c, unwrapping connections that wrap one
// (NetConn, as the supervisor's counted connections and tls.Conn have).
func socketOf(c net.Conn) (syscall.Conn, bool) {
	for range 4 {
		if sc, ok := c.(syscall.Conn); ok {
			return sc, true
		}
		w, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return nil, false
		}
		c = w.NetConn()
	}
	return nil, false
}

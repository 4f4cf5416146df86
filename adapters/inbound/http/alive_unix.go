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
	sc, ok := c.(syscall.Conn)
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

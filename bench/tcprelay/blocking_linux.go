package main

import (
	"net"

	"golang.org/x/sys/unix"
)

// blockingRelay joins c to u with a goroutine per direction that reads and
// writes the sockets with the network poller bypassed: the sockets are
// made blocking, so a read waits in the kernel on its own OS thread.
func blockingRelay(c, u net.Conn) {
	cf, uf := detach(c, false), detach(u, false)
	done := make(chan struct{})
	go func() { pump(uf, cf); close(done) }()
	pump(cf, uf)
	<-done
	unix.Close(cf)
	unix.Close(uf)
}

// detach returns a duplicate of conn's socket, blocking or not, and closes
// conn (which takes the socket out of Go's network poller).
func detach(conn net.Conn, nonblock bool) int {
	raw, err := conn.(*net.TCPConn).SyscallConn()
	fd := -1
	if err == nil {
		_ = raw.Control(func(f uintptr) { fd, _ = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) })
	}
	conn.Close()
	if fd >= 0 {
		_ = unix.SetNonblock(fd, nonblock)
	}
	return fd
}

// pump copies src to dst until src ends, then shuts dst's sending side.
func pump(dst, src int) {
	buf := make([]byte, 32<<10)
	defer unix.Shutdown(dst, unix.SHUT_WR)
	for {
		n, err := unix.Read(src, buf)
		if err == unix.EINTR {
			continue
		}
		if n <= 0 || writeAll(dst, buf[:n]) != nil {
			return
		}
	}
}

// writeAll writes b to fd, waiting (poll) while the socket's buffer is full.
func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		switch err {
		case nil:
			b = b[n:]
		case unix.EINTR:
		case unix.EAGAIN:
			_, _ = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}, -1)
		default:
			return err
		}
	}
	return nil
}

package main

import (
	"errors"
	"net"
	"syscall"
)

// readRelay joins c to u with a goroutine per direction that reads into a
// buffer and writes it out (net.Conn's Read and Write): the shape of the
// Sidecar's listeners, whose every read that finds nothing (EAGAIN) is one
// more system call before the goroutine parks.
func readRelay(c, u net.Conn) {
	joinBy(c, u, func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	})
}

// waitRelay is readRelay without the read that finds nothing: each
// direction reads inside one syscall.RawConn.Read, and after a read that
// came back short of the buffer (the socket's queue is empty) it waits for
// the poller's next readiness instead of reading again. The readiness a
// wait needs is never lost: the RawConn.Read is entered once, before the
// first read, and every arrival after that marks the descriptor ready.
//
// For measuring only: a short read does not prove that the peer had not
// closed. A FIN that came with the last bytes leaves the end of the stream
// pending with no further readiness, and that direction can then wait for
// ever (docs/performance.md, "What bounds TPS, and the read that finds
// nothing"). pgbench's connections end with a Terminate, whose
// answer is PostgreSQL's close alone, so the bench does not meet it.
func waitRelay(c, u net.Conn) {
	joinBy(c, u, func(dst, src net.Conn) {
		raw, err := src.(*net.TCPConn).SyscallConn()
		if err != nil {
			return
		}
		buf := make([]byte, 32<<10)
		_ = raw.Read(func(fd uintptr) bool {
			for {
				n, err := syscall.Read(int(fd), buf)
				switch {
				case errors.Is(err, syscall.EINTR):
					continue
				case errors.Is(err, syscall.EAGAIN):
					return false
				case n <= 0:
					return true
				}
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return true
				}
				if n < len(buf) {
					return false
				}
			}
		})
	})
}

// joinBy runs pump in each direction until both end; the side pump stops
// reading from has its sending side shut.
func joinBy(c, u net.Conn, pump func(dst, src net.Conn)) {
	defer c.Close()
	defer u.Close()
	done := make(chan struct{})
	go func() {
		pump(u, c)
		_ = u.(*net.TCPConn).CloseWrite()
		close(done)
	}()
	pump(c, u)
	_ = c.(*net.TCPConn).CloseWrite()
	<-done
}

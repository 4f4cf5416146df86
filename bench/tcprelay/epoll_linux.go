package main

import (
	"net"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// epollLoop relays every connection on one OS thread: level-triggered
// epoll over the sockets, a read of whatever arrived, a write of it to the
// peer (waiting with poll in the rare case the peer's buffer is full; a
// bench tool, not a general relay).
type epollLoop struct {
	ep   int
	mu   sync.Mutex
	peer map[int32]int32
}

func newEpollLoop() (*epollLoop, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	l := &epollLoop{ep: ep, peer: map[int32]int32{}}
	go l.run()
	return l, nil
}

// add hands c and u to the loop.
func (l *epollLoop) add(c, u net.Conn) {
	cf, uf := detach(c, true), detach(u, true)
	l.mu.Lock()
	l.peer[int32(cf)], l.peer[int32(uf)] = int32(uf), int32(cf)
	l.mu.Unlock()
	for _, fd := range []int{cf, uf} {
		_ = unix.EpollCtl(l.ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)})
	}
}

func (l *epollLoop) run() {
	runtime.LockOSThread()
	evs := make([]unix.EpollEvent, 128)
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.EpollWait(l.ep, evs, -1)
		if err != nil {
			continue
		}
		for _, ev := range evs[:n] {
			l.mu.Lock()
			dst, ok := l.peer[ev.Fd]
			l.mu.Unlock()
			if !ok {
				continue
			}
			m, err := unix.Read(int(ev.Fd), buf)
			if err == unix.EAGAIN || err == unix.EINTR {
				continue
			}
			if m <= 0 || writeAll(int(dst), buf[:m]) != nil {
				l.closePair(ev.Fd, dst)
			}
		}
	}
}

func (l *epollLoop) closePair(a, b int32) {
	l.mu.Lock()
	delete(l.peer, a)
	delete(l.peer, b)
	l.mu.Unlock()
	for _, fd := range []int32{a, b} {
		_ = unix.EpollCtl(l.ep, unix.EPOLL_CTL_DEL, int(fd), nil)
		unix.Close(int(fd))
	}
}

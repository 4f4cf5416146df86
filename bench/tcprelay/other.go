//go:build !linux

package main

import (
	"errors"
	"net"
)

// Stubs: main refuses -mode blocking and -mode epoll off Linux.
func blockingRelay(c, u net.Conn) { copyRelay(c, u) }

func newEpollLoop() (interface{ add(c, u net.Conn) }, error) {
	return nil, errors.New("-mode epoll needs Linux")
}

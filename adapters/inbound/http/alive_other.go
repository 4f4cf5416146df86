//go:build !unix

package httplistener

import "net"

// connAlive cannot look at the socket on this platform: a kept-alive
// upstream connection counts as alive (a request that fails on it gets 502).
func connAlive(net.Conn) bool { return true }

// clientGone cannot look at the socket on this platform: the client counts
// as connected until a write to it fails.
func clientGone(net.Conn) bool { return false }

package supervisor

import (
	"net"
	"sync"
)

// connSet counts the live connections of one listener instance, so the
// supervisor knows when its drain is over and can close what outlives the
// drain deadline.
type connSet struct {
	mu       sync.Mutex
	m        map[*trackedConn]struct{}
	empty    chan struct{} // closed while the set is empty
	stopped  bool          // no more connections are taken
	accepted int
}

func newConnSet() *connSet {
	e := make(chan struct{})
	close(e)
	return &connSet{m: map[*trackedConn]struct{}{}, empty: e}
}

// add tracks c; false once the set stopped taking connections.
func (s *connSet) add(c net.Conn) (*trackedConn, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, false
	}
	tc := &trackedConn{Conn: c, set: s}
	if len(s.m) == 0 {
		s.empty = make(chan struct{})
	}
	s.m[tc] = struct{}{}
	s.accepted++
	return tc, true
}

// drop forgets c without closing it (it was not handed over).
func (s *connSet) drop(c *trackedConn) { s.remove(c) }

func (s *connSet) remove(c *trackedConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[c]; !ok {
		return
	}
	delete(s.m, c)
	if len(s.m) == 0 {
		close(s.empty)
	}
}

// stop makes add refuse from now on.
func (s *connSet) stop() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
}

// emptied returns a channel closed while no connection is live.
func (s *connSet) emptied() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.empty
}

// live returns how many connections are open.
func (s *connSet) live() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// closeAll closes every live connection and returns how many it closed.
func (s *connSet) closeAll() int {
	s.mu.Lock()
	list := make([]*trackedConn, 0, len(s.m))
	for c := range s.m {
		list = append(list, c)
	}
	s.mu.Unlock()
	for _, c := range list {
		_ = c.Close()
	}
	return len(list)
}

// trackedConn is a connection counted in its set until it is closed.
type trackedConn struct {
	net.Conn
	set  *connSet
	once sync.Once
}

// NetConn returns the counted connection itself (as tls.Conn.NetConn does),
// for a protocol that looks at its socket (the http relay checks whether a
// client is still connected).
func (c *trackedConn) NetConn() net.Conn { return c.Conn }

// Close closes the connection and stops counting it.
func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.set.remove(c) })
	return err
}

package supervisor

import (
	"errors"
	"net"
	"sync"
	"time"
)

// socket is one bound address. Its accept loop hands each connection to
// the listener instance that owns the address now (target), so a reload can
// give the address to another instance (a listener moved onto it, or two
// listeners that swap addresses) without closing the socket: no connection
// is refused while the swap happens.
type socket struct {
	key string // the address as configured
	ln  net.Listener

	mu      sync.Mutex
	target  *instance
	changed chan struct{} // closed and replaced whenever target changes
	closed  bool
	quit    chan struct{} // closed by close
	done    chan struct{} // the accept loop ended
}

func newSocket(key string, ln net.Listener) *socket {
	s := &socket{key: key, ln: ln, changed: make(chan struct{}), quit: make(chan struct{}), done: make(chan struct{})}
	go s.acceptLoop()
	return s
}

// setTarget makes inst the owner of the connections accepted from now on.
// A connection accepted while the owner has stopped accepting and no new
// one is set yet waits for the next owner (or for close).
func (s *socket) setTarget(inst *instance) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.target = inst
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *socket) owner() (*instance, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.target, s.changed
}

// close stops accepting on the address. Connections already handed over
// are not touched.
func (s *socket) close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.quit)
	}
	s.mu.Unlock()
	_ = s.ln.Close()
	<-s.done
}

func (s *socket) acceptLoop() {
	defer close(s.done)
	delay := 5 * time.Millisecond
	for {
		c, err := s.ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed || errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(delay) // e.g. EMFILE: try again, slower
			delay = min(2*delay, time.Second)
			continue
		}
		delay = 5 * time.Millisecond
		s.deliver(c)
	}
}

// deliver hands c to the current owner, following a change of owner that
// happens while it waits (a reload), so no connection is lost in a swap.
func (s *socket) deliver(c net.Conn) {
	for {
		inst, changed := s.owner()
		if inst == nil {
			_ = c.Close()
			return
		}
		tc, ok := inst.conns.add(c)
		if !ok {
			// The owner stopped accepting; wait for the new owner (or for
			// the socket to close).
			select {
			case <-changed:
				continue
			case <-s.quit:
				_ = c.Close()
				return
			}
		}
		select {
		case inst.ln.ch <- tc:
			return
		case <-inst.ln.closed:
			inst.conns.drop(tc)
		case <-changed:
			inst.conns.drop(tc)
		case <-s.quit:
			inst.conns.drop(tc)
			_ = c.Close()
			return
		}
	}
}

// connListener is the net.Listener a protocol's Serve accepts from: the
// connections its socket hands to this instance. Closing it stops this
// instance accepting; the socket stays bound.
type connListener struct {
	addr   net.Addr
	ch     chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newConnListener(addr net.Addr) *connListener {
	return &connListener{addr: addr, ch: make(chan net.Conn), closed: make(chan struct{})}
}

// Accept returns the next connection, or net.ErrClosed once closed.
func (l *connListener) Accept() (net.Conn, error) {
	select {
	case <-l.closed:
		return nil, net.ErrClosed
	default:
	}
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; it is idempotent.
func (l *connListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr is the bound address.
func (l *connListener) Addr() net.Addr { return l.addr }

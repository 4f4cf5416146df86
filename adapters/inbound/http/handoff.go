package httplistener

import (
	"net"
	"sync"
)

// handoffConn is a client connection the relay gives to net/http's server
// (handler.go) for the rest of its life: Read first returns the bytes the
// relay read but did not use (the head it left to net/http, and what
// followed), then reads the connection.
type handoffConn struct {
	net.Conn
	pre []byte
	// served is how many requests the relay answered on the connection
	// before, so the status path's "first request on a connection" rule
	// counts on (requestNumber).
	served int64
}

// Read returns the bytes read before the hand-off first.
func (c *handoffConn) Read(p []byte) (int, error) {
	if len(c.pre) > 0 {
		n := copy(p, c.pre)
		c.pre = c.pre[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// CloseWrite half-closes the connection when it can (net/http uses it to
// let a client read an error answer before the connection closes).
func (c *handoffConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// handoffListener is the net.Listener that net/http's server serves: its
// Accept returns the connections the relay hands off.
type handoffListener struct {
	addr  net.Addr
	conns chan net.Conn
	once  sync.Once
	done  chan struct{}
}

func newHandoffListener(addr net.Addr) *handoffListener {
	return &handoffListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// give hands c to the server; when the listener is closed (the listener
// drains), c is closed instead.
func (l *handoffListener) give(c net.Conn) {
	select {
	case l.conns <- c:
	case <-l.done:
		_ = c.Close()
	}
}

// Accept returns the next handed-off connection, or net.ErrClosed.
func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept.
func (l *handoffListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is the address of the listener the relay accepts on.
func (l *handoffListener) Addr() net.Addr { return l.addr }

package httplistener

import (
	"bufio"
	"net"
	"net/url"
	"time"
)

// upstreamConn is the relay's connection to the upstream, pinned to one
// client connection: requests of that client go over it one after another,
// and it closes with the client connection.
type upstreamConn struct {
	c    net.Conn
	br   *bufio.Reader
	addr string
	// used: it carried a request already, so the upstream may have closed
	// it meanwhile (a kept-alive connection's idle timeout).
	used bool
	// rd is c's read deadline, which rolls (peekUpstream).
	rd readDeadline
	// last is the last response head parsed on c (parseResponse).
	last lastResponse
}

// upstreamDialer dials like http.DefaultTransport.
var upstreamDialer = net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}

// upstreamAddr returns the host:port the relay dials for the http upstream
// URL u (port 80 when u names none).
func upstreamAddr(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// dialUpstream connects to addr.
func dialUpstream(addr string) (*upstreamConn, error) {
	c, err := upstreamDialer.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &upstreamConn{c: c, br: bufio.NewReaderSize(c, 4<<10), addr: addr}, nil
}

// usable reports whether a connection that carried a request before is
// still open and has sent nothing unasked (connAlive), so a request that
// must not be sent twice can go over it.
func (u *upstreamConn) usable() bool {
	u.rd.roll(u.c, clientCheckEvery, clientCheckEvery/2) // an expired read deadline would fail connAlive's look
	return u.br.Buffered() == 0 && connAlive(u.c)
}

func (u *upstreamConn) close() { _ = u.c.Close() }

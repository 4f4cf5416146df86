package tdstls

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
)

// ALPN is the application protocol TDS 8.0 clients and servers name in the
// TLS handshake (MS-TDS 2.1, TDS 8.0).
const ALPN = "tds/8.0"

// upgrade is Server.Upgrade (server) and Client.Upgrade: after the
// PRELOGIN exchange, the handshake in PRELOGIN packets for LoginOnly and
// Full, then the connection for the rest of the session.
func upgrade(c net.Conn, o Outcome, cfg *tls.Config, server bool) (net.Conn, error) {
	if o == Plain || o == StrictTLS {
		return c, nil
	}
	if cfg == nil {
		return nil, ErrNoConfig
	}
	sw := &switchConn{Conn: c, wrapped: newWrappedConn(c)}
	var tc *tls.Conn
	if server {
		tc = tls.Server(sw, wrappedConfig(cfg))
	} else {
		tc = tls.Client(sw, wrappedConfig(cfg))
	}
	if err := tc.Handshake(); err != nil {
		return nil, fmt.Errorf("tdstls: TLS handshake in PRELOGIN packets: %w", err)
	}
	if err := sw.raw(); err != nil {
		return nil, err
	}
	switch {
	case o == Full:
		return tc, nil
	case server:
		// One TLS record at a time: the clear messages after LOGIN7
		// stay on the socket, not inside tls.Conn.
		sw.rec = &recordReader{R: sw.src}
		return &loginOnlyServer{Conn: c, tc: tc, clear: sw.src}, nil
	}
	return &loginOnlyClient{Conn: c, tc: tc, clear: sw.src}, nil
}

// wrappedConfig is cfg for a handshake carried in PRELOGIN packets: TLS 1.2
// at most, as SQL Server (TLS 1.3 only with TDS 8.0; a TLS 1.3 server's
// post-handshake tickets would have no PRELOGIN packet to travel in), no
// ALPN, one record per write as SQL Server expects (go-mssqldb issue 166).
func wrappedConfig(cfg *tls.Config) *tls.Config {
	c := cfg.Clone()
	if c.MaxVersion == 0 || c.MaxVersion > tls.VersionTLS12 {
		c.MaxVersion = tls.VersionTLS12
	}
	c.NextProtos = nil
	c.DynamicRecordSizingDisabled = true
	return c
}

// strictConfig is cfg for TDS 8.0: ALPN tds/8.0, TLS 1.2 at least.
func strictConfig(cfg *tls.Config) *tls.Config {
	c := cfg.Clone()
	c.NextProtos = []string{ALPN}
	if c.MinVersion < tls.VersionTLS12 {
		c.MinVersion = tls.VersionTLS12
	}
	c.DynamicRecordSizingDisabled = true
	return c
}

// loginOnlyServer is the server's connection after login-only negotiation:
// it reads the first message (LOGIN7) through TLS, then reads the socket;
// it always writes the socket (the login answer is in clear).
type loginOnlyServer struct {
	net.Conn
	tc    *tls.Conn
	clear io.Reader
	first firstMessage
}

func (c *loginOnlyServer) Read(b []byte) (int, error) {
	if c.first.done {
		return c.clear.Read(b)
	}
	n, err := c.tc.Read(b[:min(len(b), c.first.next())])
	if cerr := c.first.consume(b[:n]); cerr != nil {
		return n, cerr
	}
	return n, err
}

// loginOnlyClient is the client's connection after login-only negotiation:
// it writes the first message (LOGIN7) through TLS, in one TLS write once
// the message's last packet is complete, then writes the socket; it always
// reads the socket.
type loginOnlyClient struct {
	net.Conn
	tc    *tls.Conn
	clear io.Reader
	first firstMessage
	buf   []byte
}

func (c *loginOnlyClient) Read(b []byte) (int, error) { return c.clear.Read(b) }

func (c *loginOnlyClient) Write(b []byte) (int, error) {
	total := len(b)
	for len(b) > 0 && !c.first.done {
		n := min(len(b), c.first.next())
		if err := c.first.consume(b[:n]); err != nil {
			return total - len(b), err
		}
		c.buf, b = append(c.buf, b[:n]...), b[n:]
		if c.first.done {
			if _, err := c.tc.Write(c.buf); err != nil {
				return total - len(b), err
			}
			c.buf = nil
		}
	}
	if len(b) > 0 {
		if _, err := c.Conn.Write(b); err != nil {
			return total - len(b), err
		}
	}
	return total, nil
}

// prefixConn replays bytes read ahead (Server.Begin's first byte) before
// the socket.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if len(p.prefix) > 0 {
		n := copy(b, p.prefix)
		p.prefix = p.prefix[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}

// ConnectionState returns the TLS state under a connection Upgrade or Begin
// returned (version, cipher suite, ALPN, peer certificates) for log lines,
// and false for a connection in clear.
func ConnectionState(c net.Conn) (tls.ConnectionState, bool) {
	switch c := c.(type) {
	case *tls.Conn:
		return c.ConnectionState(), true
	case *loginOnlyServer:
		return c.tc.ConnectionState(), true
	case *loginOnlyClient:
		return c.tc.ConnectionState(), true
	}
	return tls.ConnectionState{}, false
}

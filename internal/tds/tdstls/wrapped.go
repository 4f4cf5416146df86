package tdstls

import (
	"bytes"
	"fmt"
	"io"
	"net"

	"github.com/hoophq/sidecar/internal/tds"
)

// maxHandshakeMessage bounds one PRELOGIN message carrying a handshake
// flight (a certificate chain fits many times over).
const maxHandshakeMessage = 1 << 20

// wrappedConn carries TLS handshake records inside TDS PRELOGIN packets
// (MS-TDS 2.2.6.5: "the packet data is simply the raw bytes of the SSL
// handshake payload"). tls.Conn reads and writes it during the handshake:
// writes are buffered and sent as one PRELOGIN message (one flight, split
// to packetSize) when tls.Conn next reads or when flush is called; reads
// return the payload of PRELOGIN messages (type 0x12; type 0x04 too, as some
// servers answer). It reads exactly the packets it needs from the socket,
// never more, and remembers the unread part of the last payload for rest.
type wrappedConn struct {
	net.Conn
	mr         tds.MessageReader
	packetSize int
	out        []byte
	in         []byte
}

func newWrappedConn(c net.Conn) *wrappedConn {
	return &wrappedConn{Conn: c, packetSize: tds.DefaultPacketSize,
		mr: tds.MessageReader{R: c, PacketSize: tds.MaxPacketSize, MaxMessage: maxHandshakeMessage}}
}

func (w *wrappedConn) Write(b []byte) (int, error) {
	w.out = append(w.out, b...)
	return len(b), nil
}

func (w *wrappedConn) Read(b []byte) (int, error) {
	if err := w.flush(); err != nil {
		return 0, err
	}
	for len(w.in) == 0 {
		m, err := w.mr.ReadMessage()
		if err != nil {
			return 0, err
		}
		if m.Type != tds.PacketPrelogin && m.Type != tds.PacketReply {
			return 0, fmt.Errorf("%w: packet type %d during the TLS handshake, want PRELOGIN (18)", ErrBadPacket, m.Type)
		}
		w.in = m.Data
	}
	n := copy(b, w.in)
	w.in = w.in[n:]
	return n, nil
}

// flush sends the buffered handshake bytes as one PRELOGIN message.
func (w *wrappedConn) flush() error {
	if len(w.out) == 0 {
		return nil
	}
	err := tds.WriteMessage(w.Conn, tds.PacketPrelogin, 0, 0, w.out, w.packetSize)
	w.out = w.out[:0]
	return err
}

// switchConn is the net.Conn under a tls.Conn whose handshake runs in
// PRELOGIN packets: it delegates to wrapped during the handshake, then to the
// socket (after the bytes wrapped had read but tls.Conn had not).
type switchConn struct {
	net.Conn
	wrapped *wrappedConn
	src     io.Reader     // after the handshake: wrapped's unread bytes, then the socket
	rec     *recordReader // login-only: src one TLS record at a time
}

func (s *switchConn) Read(b []byte) (int, error) {
	switch {
	case s.wrapped != nil:
		return s.wrapped.Read(b)
	case s.rec != nil:
		return s.rec.Read(b)
	}
	return s.src.Read(b)
}

func (s *switchConn) Write(b []byte) (int, error) {
	if s.wrapped != nil {
		return s.wrapped.Write(b)
	}
	return s.Conn.Write(b)
}

// raw ends the handshake phase: it flushes what the handshake left to send
// and switches to the socket, after any handshake bytes read but not yet
// taken by tls.Conn.
func (s *switchConn) raw() error {
	err := s.wrapped.flush()
	s.src = io.MultiReader(bytes.NewReader(s.wrapped.in), s.Conn)
	s.wrapped = nil
	return err
}

// Package connbuf is buffered reading and writing of a network connection
// that holds a buffer only while bytes are in it: an idle connection keeps
// none (bufio keeps its 32 KiB for the connection's whole life). The buffers
// come from one sync.Pool of Size-byte slices.
//
// Reader reads a TCP connection through its syscall.RawConn: the read that
// finds nothing to read (EAGAIN) gives the buffer back before the goroutine
// parks in the network poller, and the read that follows readiness takes
// one again, so the system calls are the ones net.Conn.Read makes. Other
// connections (TLS) are read through their Read, which blocks holding the
// buffer. Writer takes a buffer at its first Write and gives it back at
// Flush.
//
// Neither is safe for concurrent use; each is used like its bufio
// counterpart, whose method names and meanings they keep.
package connbuf

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"sync"
	"syscall"
)

// Size is the length of every buffer, in bytes: the largest Peek.
const Size = 32 << 10

var pool = sync.Pool{New: func() any { b := make([]byte, Size); return &b }}

// taken, when set (by tests, before any buffer moves), is told of each
// buffer taken from the pool (+1) and given back (-1). Unset, the hot path
// pays one predictable branch instead of an atomic on a counter that every
// connection's goroutines would share.
var taken func(delta int64)

func getBuf() *[]byte {
	if taken != nil {
		taken(1)
	}
	return pool.Get().(*[]byte)
}

func putBuf(b *[]byte) {
	if taken != nil {
		taken(-1)
	}
	pool.Put(b)
}

// Reader is a buffered reader of one connection (bufio.Reader's Peek,
// Discard, Buffered, Size and Read).
type Reader struct {
	rd   io.Reader
	raw  syscall.RawConn // nil: rd is read through its Read
	buf  *[]byte         // nil while empty (released)
	r, w int             // unread bytes: (*buf)[r:w]
}

// NewReader returns a Reader of rd. A *net.TCPConn, or a wrapper that
// returns one from NetConn() other than *tls.Conn (supervisor's counted
// connections), is read through its RawConn so that its buffer is released
// while it waits; any other rd through its Read.
func NewReader(rd io.Reader) *Reader {
	return &Reader{rd: rd, raw: rawConn(rd)}
}

// rawConn returns the RawConn of rd's TCP connection, or nil.
func rawConn(rd io.Reader) syscall.RawConn {
	for {
		switch c := rd.(type) {
		case *net.TCPConn:
			raw, err := c.SyscallConn()
			if err != nil {
				return nil
			}
			return raw
		case *tls.Conn:
			return nil
		case interface{ NetConn() net.Conn }:
			rd = c.NetConn()
		default:
			return nil
		}
	}
}

// Size returns the buffer's length in bytes (Peek's limit).
func (b *Reader) Size() int { return Size }

// Buffered returns the number of bytes that can be read without a read
// from the connection.
func (b *Reader) Buffered() int { return b.w - b.r }

// Peek returns the next n bytes without consuming them, reading from the
// connection until they are there. The slice is valid until the next call.
// It returns fewer bytes with the read error (io.EOF, a deadline), or with
// bufio.ErrBufferFull when n is more than Size.
func (b *Reader) Peek(n int) ([]byte, error) {
	if n < 0 {
		return nil, bufio.ErrNegativeCount
	}
	if n > Size {
		return b.bytes(), bufio.ErrBufferFull
	}
	for b.w-b.r < n {
		if err := b.fill(); err != nil {
			return b.bytes(), err
		}
	}
	return b.bytes()[:n], nil
}

// bytes returns the unread bytes.
func (b *Reader) bytes() []byte {
	if b.buf == nil {
		return nil
	}
	return (*b.buf)[b.r:b.w]
}

// Discard skips the next n buffered bytes and returns how many it skipped
// (fewer, with bufio's ErrNegativeCount or the read error, only if n is
// more than what arrives).
func (b *Reader) Discard(n int) (int, error) {
	if n < 0 {
		return 0, bufio.ErrNegativeCount
	}
	done := 0
	for {
		skip := min(n-done, b.w-b.r)
		b.r += skip
		done += skip
		if done == n {
			return done, nil
		}
		if err := b.fill(); err != nil {
			return done, err
		}
	}
}

// Read reads into p: buffered bytes first; with none buffered, one read
// from the connection (straight into p when p is at least Size long).
func (b *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if b.r == b.w {
		if len(p) >= Size && b.raw == nil {
			return b.rd.Read(p)
		}
		if err := b.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, (*b.buf)[b.r:b.w])
	b.r += n
	return n, nil
}

// fill reads once more from the connection into the buffer, after the
// unread bytes, and reports io.EOF when the peer closed.
func (b *Reader) fill() error {
	if b.buf == nil {
		b.buf = getBuf()
		b.r, b.w = 0, 0
	} else if b.r > 0 {
		b.w = copy(*b.buf, (*b.buf)[b.r:b.w])
		b.r = 0
	}
	if b.raw == nil {
		n, err := b.rd.Read((*b.buf)[b.w:])
		b.w += n
		if n > 0 {
			return nil
		}
		if err == nil {
			err = io.ErrNoProgress
		}
		return err
	}
	var n int
	var rerr error
	err := b.raw.Read(func(fd uintptr) bool {
		if b.buf == nil {
			b.buf = getBuf()
		}
		for {
			n, rerr = syscall.Read(int(fd), (*b.buf)[b.w:])
			if rerr != syscall.EINTR {
				break
			}
		}
		if rerr == syscall.EAGAIN {
			if b.w == 0 { // nothing unread: wait without a buffer
				putBuf(b.buf)
				b.buf = nil
			}
			return false
		}
		return true
	})
	switch { // with err set the wait may have ended without a buffer
	case err != nil:
		return err
	case rerr != nil:
		return &net.OpError{Op: "read", Net: "tcp", Err: rerr}
	case n <= 0:
		return io.EOF
	}
	b.w += n
	return nil
}

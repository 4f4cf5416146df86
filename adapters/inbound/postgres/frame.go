package postgres

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
)

// maxMessage is the largest message accepted, in bytes (PostgreSQL's own
// limit for one message is 1 GiB).
const maxMessage = 1 << 30

// protocolError is a client or upstream message that breaks the protocol.
type protocolError struct{ msg string }

func (e *protocolError) Error() string { return e.msg }

func protoErr(format string, a ...any) error { return &protocolError{fmt.Sprintf(format, a...)} }

// frameReader is what messages are read from: the session's
// connbuf.Reader of a connection (a bufio.Reader in tests).
type frameReader interface {
	io.Reader
	Peek(n int) ([]byte, error)
	Discard(n int) (int, error)
	Buffered() int
	Size() int
}

// readFrame reads one typed message and returns its type and the whole
// frame (type byte, length, body) in a new slice. Memory grows as the bytes
// arrive, so a length that lies costs nothing.
func readFrame(r frameReader) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := int64(binary.BigEndian.Uint32(hdr[1:]))
	if n < 4 || n > maxMessage {
		return 0, nil, protoErr("message %q has an invalid length %d", hdr[0], n)
	}
	if n <= 64<<10 {
		buf := make([]byte, 1+n)
		copy(buf, hdr[:])
		if _, err := io.ReadFull(r, buf[5:]); err != nil {
			return 0, nil, unexpectedEOF(err)
		}
		return hdr[0], buf, nil
	}
	var b bytes.Buffer
	b.Write(hdr[:])
	if _, err := io.CopyN(&b, r, n-4); err != nil {
		return 0, nil, unexpectedEOF(err)
	}
	return hdr[0], b.Bytes(), nil
}

// peekFrame returns the next typed message from r without copying it when
// it fits in r's buffer: frame is then r's own bytes, valid until the next
// read from r, and the caller must Discard(used) once done with it. A
// larger message is read into a new slice (used is 0).
func peekFrame(r frameReader) (typ byte, frame []byte, used int, err error) {
	hdr, err := r.Peek(5)
	if err != nil {
		if len(hdr) > 0 {
			err = unexpectedEOF(err)
		}
		return 0, nil, 0, err
	}
	n := int64(binary.BigEndian.Uint32(hdr[1:]))
	if n < 4 || n > maxMessage {
		return 0, nil, 0, protoErr("message %q has an invalid length %d", hdr[0], n)
	}
	if 1+n > int64(r.Size()) {
		typ, frame, err = readFrame(r)
		return typ, frame, 0, err
	}
	frame, err = r.Peek(int(1 + n))
	if err != nil {
		return 0, nil, 0, unexpectedEOF(err)
	}
	return frame[0], frame, len(frame), nil
}

// readStartup reads one untyped startup packet (length, then body) and
// returns its body. PostgreSQL refuses startup packets over 10000 bytes.
func readStartup(r frameReader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint32(hdr[:]))
	if n < 8 || n > 10000 {
		return nil, protoErr("invalid length of startup packet: %d", n)
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, unexpectedEOF(err)
	}
	return body, nil
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// body returns a frame's body (after the type and the length).
func body(frame []byte) []byte { return frame[5:] }

// isClosed reports whether err only says that a peer went away.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF)
}

// encoder is what pgproto3 messages implement.
type encoder interface {
	Encode(dst []byte) ([]byte, error)
}

// encode returns msgs encoded back to back.
func encode(msgs ...encoder) []byte {
	var out []byte
	for _, m := range msgs {
		var err error
		if out, err = m.Encode(out); err != nil {
			panic(fmt.Sprintf("postgres: encoding %T: %v", m, err)) // only for our own, well-formed messages
		}
	}
	return out
}

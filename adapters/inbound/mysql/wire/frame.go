package wire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
)

// MaxPayload is the largest payload of one physical packet (MySQL Client/
// Server Protocol, "MySQL Packets"): a payload of 2^24-1 bytes is continued
// in the next packet.
const MaxPayload = 1<<24 - 1

// Error is a packet that breaks the protocol; a listener ends the
// connection with an ERR (ER_MALFORMED_PACKET) and a log line.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func Errorf(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// Header reads one packet Header: the payload length (0…2^24-1) and the
// sequence id.
func Header(r *bufio.Reader) (n int, seq byte, err error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, 0, err
	}
	return int(h[0]) | int(h[1])<<8 | int(h[2])<<16, h[3], nil
}

// Read reads one logical packet (physical packets of MaxPayload bytes
// joined with their continuations) of at most limit bytes, returning the
// payload and the sequence id of its last physical packet. A longer packet
// is an *Error.
func Read(r *bufio.Reader, limit int) ([]byte, byte, error) {
	var out []byte
	for {
		n, seq, err := Header(r)
		if err != nil {
			return nil, 0, err
		}
		if len(out)+n > limit {
			return nil, 0, Errorf("packet longer than %d bytes", limit)
		}
		start := len(out)
		out = append(out, make([]byte, n)...)
		if _, err := io.ReadFull(r, out[start:]); err != nil {
			return nil, 0, UnexpectedEOF(err)
		}
		if n < MaxPayload {
			return out, seq, nil
		}
	}
}

// Write writes payload as one logical packet starting at sequence id
// seq, split into physical packets as the protocol requires, and returns
// the next sequence id.
func Write(w io.Writer, seq byte, payload []byte) (byte, error) {
	for {
		n := min(len(payload), MaxPayload)
		if err := WriteHeader(w, n, seq); err != nil {
			return seq, err
		}
		if _, err := w.Write(payload[:n]); err != nil {
			return seq, err
		}
		seq++
		payload = payload[n:]
		if n < MaxPayload {
			return seq, nil
		}
	}
}

// WriteHeader writes one packet Header: payload length n and sequence id
// seq. To a bufio.Writer (the sessions' writers) it costs no allocation.
func WriteHeader(w io.Writer, n int, seq byte) error {
	if bw, ok := w.(*bufio.Writer); ok {
		bw.WriteByte(byte(n))
		bw.WriteByte(byte(n >> 8))
		bw.WriteByte(byte(n >> 16))
		return bw.WriteByte(seq)
	}
	h := [4]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}
	_, err := w.Write(h[:])
	return err
}

// UnexpectedEOF turns io.EOF inside a packet into io.ErrUnexpectedEOF.
func UnexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// IsClosed reports whether err only says that a connection ended.
func IsClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF)
}

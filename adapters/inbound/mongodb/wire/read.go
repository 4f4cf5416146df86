package wire

import (
	"encoding/binary"
	"io"
)

// ReadMessage reads one whole message, its 16-byte header included, from r.
//
// maxMessageSize is the largest messageLength accepted, in bytes: the
// upstream's maxMessageSizeBytes from its hello reply; zero or less means
// DefaultMaxMessageSize (48,000,000). Nothing else bounds a message here.
//
// Errors: io.EOF when r ends before the first byte of a message,
// io.ErrUnexpectedEOF when it ends inside one, *SizeError when the
// messageLength is negative, shorter than the header or over the maximum
// (nothing past the header was read), or r's own error.
func ReadMessage(r io.Reader, maxMessageSize int) ([]byte, error) {
	return ReadMessageBuf(r, nil, maxMessageSize)
}

// ReadMessageBuf is ReadMessage reusing buf's capacity when it fits: the
// returned message aliases buf then, and is valid until buf is used again.
func ReadMessageBuf(r io.Reader, buf []byte, maxMessageSize int) ([]byte, error) {
	if maxMessageSize <= 0 {
		maxMessageSize = DefaultMaxMessageSize
	}
	var hdr [HeaderLen]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := int64(int32(binary.LittleEndian.Uint32(hdr[:])))
	if n < HeaderLen || n > int64(maxMessageSize) {
		return nil, &SizeError{Length: n, Max: maxMessageSize}
	}
	if int64(cap(buf)) >= n {
		buf = buf[:n]
	} else {
		buf = make([]byte, n)
	}
	copy(buf, hdr[:])
	if _, err := io.ReadFull(r, buf[HeaderLen:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

package grpclistener

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
)

// prefixLen is the length of a gRPC message's prefix on the wire: a
// compressed flag (1 byte) and the message length (4 bytes, big endian)
// (gRPC over HTTP/2, "Length-Prefixed-Message").
const prefixLen = 5

// msgScan follows the message boundaries of one direction of a call across
// DATA frames, so the relay can refuse a message over a limit from its
// prefix alone, without holding the message. The zero value is at the start
// of a message.
type msgScan struct {
	prefix    [prefixLen]byte
	prefixN   int    // bytes of the current prefix seen
	remaining uint32 // bytes of the current message's body still to come
}

// feed reads the next bytes b of the direction and returns the declared
// length of the first message in b whose length is over max, and whether
// there was one; after that the scan's state is meaningless (the call ends).
func (m *msgScan) feed(b []byte, max uint32) (uint32, bool) {
	for len(b) > 0 {
		if m.remaining > 0 {
			n := uint32(min(len(b), int(min(m.remaining, 1<<30))))
			m.remaining -= n
			b = b[n:]
			continue
		}
		n := copy(m.prefix[m.prefixN:], b)
		m.prefixN += n
		b = b[n:]
		if m.prefixN < prefixLen {
			return 0, false
		}
		m.prefixN = 0
		l := binary.BigEndian.Uint32(m.prefix[1:])
		if l > max {
			return l, true
		}
		m.remaining = l
	}
	return 0, false
}

// firstMessage reports whether b, the first bytes a client sent on a call,
// hold its whole first message, and that message's wire length (prefix and
// body) and declared body length. declared is meaningful once b holds the
// prefix (len(b) >= prefixLen).
func firstMessage(b []byte) (wire int, declared uint32, whole bool) {
	if len(b) < prefixLen {
		return 0, 0, false
	}
	declared = binary.BigEndian.Uint32(b[1:prefixLen])
	wire = prefixLen + int(declared)
	return wire, declared, len(b) >= wire
}

// messageBody returns the body of the length-prefixed message m (prefix
// included), decompressed when its flag says it is compressed with the
// call's grpc-encoding (only gzip is known; identity means uncompressed).
// The result is at most limit bytes; a larger one, an unknown encoding or a
// corrupt body is an error.
func messageBody(m []byte, encoding string, limit int64) ([]byte, error) {
	body := m[prefixLen:]
	if m[0]&1 == 0 {
		return body, nil
	}
	switch encoding {
	case "gzip":
	case "", "identity":
		return nil, fmt.Errorf("a compressed message on a call without grpc-encoding")
	default:
		return nil, fmt.Errorf("grpc-encoding %q is not supported for calls that need approval", encoding)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("gzip message: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err != nil {
		return nil, fmt.Errorf("gzip message: %w", err)
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("the decompressed message is over %d bytes", limit)
	}
	return out, nil
}

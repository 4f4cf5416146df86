package wire

import (
	"errors"
	"fmt"
)

// SizeError is ReadMessage's answer to a messageLength that cannot be a
// message: negative, shorter than the header, or over the listener's
// maximum (the upstream's maxMessageSizeBytes). The connection cannot be
// read any further: the caller closes it.
type SizeError struct {
	Length int64 // the messageLength as sent (or the uncompressedSize of an OP_COMPRESSED, plus its header)
	Max    int   // the maximum that applied, bytes
}

func (e *SizeError) Error() string {
	switch {
	case e.Length < HeaderLen:
		return fmt.Sprintf("mongodb wire: messageLength %d is shorter than the %d-byte header", e.Length, HeaderLen)
	default:
		return fmt.Sprintf("mongodb wire: messageLength %d is over maxMessageSizeBytes %d", e.Length, e.Max)
	}
}

// MalformedError says a message does not follow the wire protocol
// (https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/):
// a field runs past the message, a section kind is unknown, a BSON
// document does not validate. The listener closes that one connection.
type MalformedError struct {
	OpCode OpCode // zero when the header itself could not be read
	Reason string
	// Err is ErrChecksum or ErrUnsupportedCompressor when the reason is
	// one of them (errors.Is sees it), else nil.
	Err error
}

// Unwrap returns Err.
func (e *MalformedError) Unwrap() error { return e.Err }

func (e *MalformedError) Error() string {
	if e.OpCode == 0 {
		return "mongodb wire: malformed message: " + e.Reason
	}
	return fmt.Sprintf("mongodb wire: malformed %v: %s", e.OpCode, e.Reason)
}

// ErrChecksum is a MalformedError's Err (errors.Is) when an OP_MSG with checksumPresent carries a CRC-32C that does not match its
// bytes.
var ErrChecksum = errors.New("mongodb wire: OP_MSG checksum mismatch")

// ErrUnsupportedCompressor is a MalformedError's Err (errors.Is), and
// Compress's error, for an OP_COMPRESSED whose
// compressorId is not noop (0), snappy (1), zlib (2) or zstd (3).
var ErrUnsupportedCompressor = errors.New("mongodb wire: unsupported compressorId")

func malformed(op OpCode, format string, args ...any) error {
	return &MalformedError{OpCode: op, Reason: fmt.Sprintf(format, args...)}
}

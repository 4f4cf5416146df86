package tds

import (
	"errors"
	"fmt"
)

// ErrShort is returned (wrapped) when a message or token ends before a field the
// spec says must be there.
var ErrShort = errors.New("tds: message too short")

// ErrTooLarge is returned when a message reassembled from packets would exceed
// the caller's maximum message size.
var ErrTooLarge = errors.New("tds: message exceeds the size limit")

// ErrCannotFrame is returned by the token scanner when a token (or a column
// type inside COLMETADATA/ROW) has a length rule this codec does not implement:
// the caller cannot find the next token boundary and must stop reading tokens.
var ErrCannotFrame = errors.New("tds: cannot frame token stream")

// UnknownTypeError reports a TYPE_INFO type byte (MS-TDS 2.2.5.4) this codec
// does not decode. The listener refuses the request rather than guess.
type UnknownTypeError struct{ Type byte }

func (e *UnknownTypeError) Error() string {
	return fmt.Sprintf("tds: unsupported data type 0x%02X", e.Type)
}

// UnreadableError reports an RPC whose bytes the server may frame other
// than this codec does (MS-TDS 2.2.6.6): a parameter flagged encrypted
// (Always Encrypted: cipher metadata follows its value) or with a reserved
// status bit, or a byte 0x80 where a parameter starts (TDS 7.1's batch
// separator, or the length of a 128-character name). The listener refuses
// the request rather than guess where the next call starts.
type UnreadableError struct{ Why string }

func (e *UnreadableError) Error() string { return "tds: unreadable RPC: " + e.Why }

func short(what string) error { return fmt.Errorf("%w: %s", ErrShort, what) }

package wire

import (
	"encoding/binary"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// HeaderLen is the size in bytes of the standard message header
// (MsgHeader: messageLength, requestID, responseTo, opCode; little-endian
// int32 each), which starts every message of the wire protocol.
const HeaderLen = 16

// DefaultMaxMessageSize is the largest message, header included, accepted
// while the upstream's hello has not told the listener its
// maxMessageSizeBytes: 48,000,000 bytes, the value mongod and mongos report.
const DefaultMaxMessageSize = 48_000_000

// OpCode is a message's opCode (the driver's wiremessage.OpCode).
type OpCode = wiremessage.OpCode

// The opCodes this package decodes or encodes.
const (
	OpReply      = wiremessage.OpReply      // 1: the legacy reply to an OP_QUERY
	OpQuery      = wiremessage.OpQuery      // 2004: legacy; the handshake of older drivers and tools
	OpCompressed = wiremessage.OpCompressed // 2012: another message, compressed
	OpMsg        = wiremessage.OpMsg        // 2013: every command since MongoDB 3.6
)

// Header is the standard message header. Length counts the whole message,
// header included.
type Header struct {
	Length     int32
	RequestID  int32
	ResponseTo int32
	OpCode     OpCode
}

// ParseHeader reads the header at the start of msg. It checks only that
// there are HeaderLen bytes; ReadMessage and the Decode functions check
// Length against the message.
func ParseHeader(msg []byte) (Header, error) {
	length, reqID, respTo, op, _, ok := wiremessage.ReadHeader(msg)
	if !ok {
		return Header{}, &MalformedError{Reason: fmt.Sprintf("%d bytes, shorter than the %d-byte header", len(msg), HeaderLen)}
	}
	return Header{Length: length, RequestID: reqID, ResponseTo: respTo, OpCode: op}, nil
}

// AppendHeader appends h to dst as it goes on the wire.
func AppendHeader(dst []byte, h Header) []byte {
	return wiremessage.AppendHeader(dst, h.Length, h.RequestID, h.ResponseTo, h.OpCode)
}

// setLength writes the length of msg[start:] into the header at msg[start:].
func setLength(msg []byte, start int) {
	binary.LittleEndian.PutUint32(msg[start:], uint32(len(msg)-start))
}

// body returns msg after its header, once the header's Length was checked
// to equal len(msg) and the opCode to be op.
func body(msg []byte, op OpCode) (Header, []byte, error) {
	h, err := ParseHeader(msg)
	if err != nil {
		return h, nil, err
	}
	if h.OpCode != op {
		return h, nil, &MalformedError{OpCode: h.OpCode, Reason: fmt.Sprintf("opCode %d is not %v", int32(h.OpCode), op)}
	}
	if int(h.Length) != len(msg) {
		return h, nil, &MalformedError{OpCode: op, Reason: fmt.Sprintf("messageLength %d but %d bytes", h.Length, len(msg))}
	}
	return h, msg[HeaderLen:], nil
}

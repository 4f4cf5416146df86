package wire

import (
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// ReplyFlag is an OP_REPLY's responseFlags (the driver's
// wiremessage.ReplyFlag).
type ReplyFlag = wiremessage.ReplyFlag

// Reply is an OP_REPLY (opCode 1), the answer to an OP_QUERY: the
// upstream's reply to a legacy hello, or the listener's own answer (a
// denial, an error) to a client's OP_QUERY.
//
// DecodeReply's Documents alias the message it was given.
type Reply struct {
	Header       Header
	Flags        ReplyFlag
	CursorID     int64
	StartingFrom int32
	// Documents are numberReturned documents; a command's reply is one.
	Documents []bsoncore.Document
}

// DecodeReply decodes msg, a whole OP_REPLY with its header:
// responseFlags, cursorID, startingFrom, numberReturned and exactly
// numberReturned valid BSON documents filling the message. Errors are
// *MalformedError.
func DecodeReply(msg []byte) (*Reply, error) {
	h, rest, err := body(msg, OpReply)
	if err != nil {
		return nil, err
	}
	if len(rest) < 20 {
		return nil, malformed(OpReply, "shorter than its 20 fixed bytes")
	}
	r := &Reply{
		Header:       h,
		Flags:        ReplyFlag(int32(binary.LittleEndian.Uint32(rest))),
		CursorID:     int64(binary.LittleEndian.Uint64(rest[4:])),
		StartingFrom: int32(binary.LittleEndian.Uint32(rest[12:])),
	}
	n := int32(binary.LittleEndian.Uint32(rest[16:]))
	rest = rest[20:]
	if n < 0 || int(n) > len(rest)/5 {
		return nil, malformed(OpReply, "numberReturned %d does not fit %d bytes", n, len(rest))
	}
	r.Documents = make([]bsoncore.Document, 0, n)
	for len(rest) > 0 {
		doc, err := readDocumentOf(OpReply, rest, "document")
		if err != nil {
			return nil, err
		}
		r.Documents = append(r.Documents, doc)
		rest = rest[len(doc):]
	}
	if len(r.Documents) != int(n) {
		return nil, malformed(OpReply, "numberReturned %d but %d documents", n, len(r.Documents))
	}
	return r, nil
}

// Append appends r as it goes on the wire to dst (header Length computed,
// opCode OP_REPLY, numberReturned len(Documents)) and returns the result.
func (r *Reply) Append(dst []byte) []byte {
	start := len(dst)
	dst = AppendHeader(dst, Header{RequestID: r.Header.RequestID, ResponseTo: r.Header.ResponseTo, OpCode: OpReply})
	dst = binary.LittleEndian.AppendUint32(dst, uint32(r.Flags))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(r.CursorID))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(r.StartingFrom))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(r.Documents)))
	for _, d := range r.Documents {
		dst = append(dst, d...)
	}
	setLength(dst, start)
	return dst
}

// ReplyQuery returns an OP_REPLY answering the OP_QUERY whose header is req
// with one document: responseTo is req.RequestID, requestID is requestID,
// responseFlags 0, cursorID 0. A command's error (a denial) is such a
// document with ok: 0, as servers answer a failed $cmd query.
func ReplyQuery(req Header, requestID int32, doc bsoncore.Document) []byte {
	r := Reply{Header: Header{RequestID: requestID, ResponseTo: req.RequestID}, Documents: []bsoncore.Document{doc}}
	return r.Append(make([]byte, 0, HeaderLen+20+len(doc)))
}

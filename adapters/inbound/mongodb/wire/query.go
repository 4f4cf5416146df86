package wire

import (
	"bytes"
	"encoding/binary"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// QueryFlag is an OP_QUERY's flags (the driver's wiremessage.QueryFlag).
type QueryFlag = wiremessage.QueryFlag

// Query is an OP_QUERY (opCode 2004). Since MongoDB 5.1 servers accept it
// only for the handshake (hello / isMaster / ismaster against "admin.$cmd"),
// which older drivers and tools still send; the listener reads it and
// answers it with an OP_REPLY.
//
// DecodeQuery's documents alias the message it was given.
type Query struct {
	Header             Header
	Flags              QueryFlag
	FullCollectionName string // "db.collection"; "db.$cmd" for a command
	NumberToSkip       int32
	NumberToReturn     int32
	Query              bsoncore.Document
	// ReturnFieldsSelector is nil when the message has none.
	ReturnFieldsSelector bsoncore.Document
}

// Database is the part of FullCollectionName before its first dot.
func (q *Query) Database() string {
	db, _, _ := strings.Cut(q.FullCollectionName, ".")
	return db
}

// IsCommand reports whether the query addresses "<db>.$cmd", i.e. its
// Query is a command document.
func (q *Query) IsCommand() bool {
	_, coll, ok := strings.Cut(q.FullCollectionName, ".")
	return ok && coll == "$cmd"
}

// DecodeQuery decodes msg, a whole OP_QUERY with its header: flags,
// fullCollectionName (cstring), numberToSkip, numberToReturn, the query
// document and an optional returnFieldsSelector document, which must fill
// the message exactly. Documents are validated (ValidateDocument).
// Errors are *MalformedError.
func DecodeQuery(msg []byte) (*Query, error) {
	h, rest, err := body(msg, OpQuery)
	if err != nil {
		return nil, err
	}
	q := &Query{Header: h}
	if len(rest) < 4 {
		return nil, malformed(OpQuery, "no flags")
	}
	q.Flags = QueryFlag(int32(binary.LittleEndian.Uint32(rest)))
	rest = rest[4:]
	nul := bytes.IndexByte(rest, 0)
	if nul < 0 {
		return nil, malformed(OpQuery, "fullCollectionName not terminated")
	}
	q.FullCollectionName, rest = string(rest[:nul]), rest[nul+1:]
	if len(rest) < 8 {
		return nil, malformed(OpQuery, "no numberToSkip/numberToReturn")
	}
	q.NumberToSkip = int32(binary.LittleEndian.Uint32(rest))
	q.NumberToReturn = int32(binary.LittleEndian.Uint32(rest[4:]))
	rest = rest[8:]
	if q.Query, err = readDocumentOf(OpQuery, rest, "query"); err != nil {
		return nil, err
	}
	rest = rest[len(q.Query):]
	if len(rest) > 0 {
		if q.ReturnFieldsSelector, err = readDocumentOf(OpQuery, rest, "returnFieldsSelector"); err != nil {
			return nil, err
		}
		if rest = rest[len(q.ReturnFieldsSelector):]; len(rest) > 0 {
			return nil, malformed(OpQuery, "%d bytes after returnFieldsSelector", len(rest))
		}
	}
	return q, nil
}

// Append appends q as it goes on the wire to dst (header Length computed,
// opCode OP_QUERY) and returns the result.
func (q *Query) Append(dst []byte) []byte {
	start := len(dst)
	dst = AppendHeader(dst, Header{RequestID: q.Header.RequestID, ResponseTo: q.Header.ResponseTo, OpCode: OpQuery})
	dst = binary.LittleEndian.AppendUint32(dst, uint32(q.Flags))
	dst = append(dst, q.FullCollectionName...)
	dst = append(dst, 0)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(q.NumberToSkip))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(q.NumberToReturn))
	dst = append(dst, q.Query...)
	dst = append(dst, q.ReturnFieldsSelector...)
	setLength(dst, start)
	return dst
}

// readDocumentOf reads and validates the BSON document at the start of src
// for a message of opCode op.
func readDocumentOf(op OpCode, src []byte, what string) (bsoncore.Document, error) {
	doc, _, ok := bsoncore.ReadDocument(src)
	if !ok {
		return nil, malformed(op, "%s: document runs past the message", what)
	}
	if err := ValidateDocument(doc); err != nil {
		return nil, malformed(op, "%s: invalid BSON: %v", what, err)
	}
	return doc, nil
}

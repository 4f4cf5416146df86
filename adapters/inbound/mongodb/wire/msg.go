package wire

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// MsgFlag is an OP_MSG's flagBits (the driver's wiremessage.MsgFlag).
type MsgFlag = wiremessage.MsgFlag

// The OP_MSG flagBits (wire protocol, "OP_MSG", "Flag Bits").
const (
	// ChecksumPresent (bit 0): a CRC-32C of the message ends it.
	ChecksumPresent = wiremessage.ChecksumPresent
	// MoreToCome (bit 1): from a client, no reply follows (w:0 writes);
	// from a server, another reply follows without a request (exhaust).
	MoreToCome = wiremessage.MoreToCome
	// ExhaustAllowed (bit 16): the client accepts MoreToCome replies.
	ExhaustAllowed = wiremessage.ExhaustAllowed
)

// requiredFlagBits are bits 0-15: a receiver must refuse a message with one
// it does not know set. Bits 16-31 are optional and kept as sent.
const requiredFlagBits MsgFlag = 0xFFFF

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Sequence is an OP_MSG kind 1 section: a document sequence that stands for
// the body's field Identifier (e.g. "documents" of an insert, "updates",
// "deletes", "ops" and "nsInfo" of a bulkWrite), documents in order.
type Sequence struct {
	Identifier string
	Documents  []bsoncore.Document
}

// Msg is an OP_MSG (opCode 2013): flagBits, exactly one kind 0 section (the
// command or reply document, Body), any number of kind 1 sections
// (Sequences) and, when ChecksumPresent is set, a CRC-32C.
//
// DecodeMsg's Body and Documents alias the message it was given.
type Msg struct {
	Header    Header
	Flags     MsgFlag
	Body      bsoncore.Document
	Sequences []Sequence
	// BodyIndex is how many Sequences preceded the body on the wire (zero
	// for every driver seen): kept so Append gives back the bytes decoded.
	BodyIndex int
}

// MoreToCome reports the moreToCome flag: no reply to this message follows
// (from a client), or more replies follow (from a server).
func (m *Msg) MoreToCome() bool { return m.Flags&MoreToCome != 0 }

// ExhaustAllowed reports the exhaustAllowed flag of a request.
func (m *Msg) ExhaustAllowed() bool { return m.Flags&ExhaustAllowed != 0 }

// ChecksumPresent reports the checksumPresent flag.
func (m *Msg) ChecksumPresent() bool { return m.Flags&ChecksumPresent != 0 }

// DecodeMsg decodes msg, a whole OP_MSG with its header (as ReadMessage
// returns it, or as Decompress rebuilds it).
//
// It checks everything the wire protocol fixes: the header's length and
// opCode, no unknown required flag bit (0-15), the CRC-32C (Castagnoli,
// over every byte before it, header included) when checksumPresent is set
// (ErrChecksum), exactly one kind 0 section, kind 1 sizes within the
// message, and that every document is valid BSON (bsoncore Validate, nested
// documents included: ValidateDocument). Anything else is a *MalformedError.
func DecodeMsg(msg []byte) (*Msg, error) {
	h, rest, err := body(msg, OpMsg)
	if err != nil {
		return nil, err
	}
	m := &Msg{Header: h}
	if len(rest) < 4 {
		return nil, malformed(OpMsg, "no flagBits")
	}
	m.Flags = MsgFlag(binary.LittleEndian.Uint32(rest))
	rest = rest[4:]
	if unknown := m.Flags & requiredFlagBits &^ (ChecksumPresent | MoreToCome); unknown != 0 {
		return nil, malformed(OpMsg, "unknown required flagBits %#x", uint32(unknown))
	}
	if m.ChecksumPresent() {
		if len(rest) < 4 {
			return nil, malformed(OpMsg, "checksumPresent but no checksum")
		}
		want := binary.LittleEndian.Uint32(msg[len(msg)-4:])
		if crc32.Checksum(msg[:len(msg)-4], castagnoli) != want {
			return nil, &MalformedError{OpCode: OpMsg, Reason: ErrChecksum.Error(), Err: ErrChecksum}
		}
		rest = rest[:len(rest)-4]
	}
	bodies := 0
	for len(rest) > 0 {
		kind := rest[0]
		rest = rest[1:]
		switch kind {
		case 0:
			doc, err := readDocument(rest, "kind 0 section")
			if err != nil {
				return nil, err
			}
			bodies++
			if bodies > 1 {
				return nil, malformed(OpMsg, "more than one kind 0 section")
			}
			m.Body, m.BodyIndex = doc, len(m.Sequences)
			rest = rest[len(doc):]
		case 1:
			seq, n, err := readSequence(rest)
			if err != nil {
				return nil, err
			}
			m.Sequences = append(m.Sequences, seq)
			rest = rest[n:]
		default:
			return nil, malformed(OpMsg, "unknown section kind %d", kind)
		}
	}
	if bodies == 0 {
		return nil, malformed(OpMsg, "no kind 0 section")
	}
	return m, nil
}

// readDocument reads and validates the BSON document at the start of src.
func readDocument(src []byte, what string) (bsoncore.Document, error) {
	return readDocumentOf(OpMsg, src, what)
}

// readSequence reads a kind 1 section's payload (after the kind byte):
// int32 size (itself included), cstring identifier, documents filling the
// rest of size exactly. It returns the section and its size.
func readSequence(src []byte) (Sequence, int, error) {
	if len(src) < 4 {
		return Sequence{}, 0, malformed(OpMsg, "kind 1 section: no size")
	}
	size := int64(int32(binary.LittleEndian.Uint32(src)))
	if size < 5 || size > int64(len(src)) {
		return Sequence{}, 0, malformed(OpMsg, "kind 1 section: size %d outside the %d bytes left", size, len(src))
	}
	sec := src[4:size]
	nul := -1
	for i, b := range sec {
		if b == 0 {
			nul = i
			break
		}
	}
	if nul < 0 {
		return Sequence{}, 0, malformed(OpMsg, "kind 1 section: identifier not terminated")
	}
	seq := Sequence{Identifier: string(sec[:nul])}
	docs := sec[nul+1:]
	seq.Documents = make([]bsoncore.Document, 0, countDocuments(docs))
	for len(docs) > 0 {
		doc, err := readDocument(docs, "kind 1 section")
		if err != nil {
			var me *MalformedError
			if errors.As(err, &me) {
				me.Reason = strings.Replace(me.Reason, "kind 1 section", "kind 1 section "+seq.Identifier, 1)
			}
			return Sequence{}, 0, err
		}
		seq.Documents = append(seq.Documents, doc)
		docs = docs[len(doc):]
	}
	return seq, int(size), nil
}

// countDocuments counts the documents in a sequence by their lengths
// alone, to size the slice; readSequence validates them.
func countDocuments(b []byte) int {
	n := 0
	for len(b) >= 4 {
		l := int(int32(binary.LittleEndian.Uint32(b)))
		if l < 5 || l > len(b) {
			break
		}
		n++
		b = b[l:]
	}
	return n
}

// Append appends m as it goes on the wire to dst and returns the result:
// the header with its Length computed (RequestID, ResponseTo and OpCode
// OP_MSG from m.Header), flagBits, the sections (the body after BodyIndex
// sequences) and, when Flags has ChecksumPresent, the CRC-32C of it all.
// Appending a decoded message gives back its bytes.
func (m *Msg) Append(dst []byte) []byte {
	start := len(dst)
	dst = AppendHeader(dst, Header{RequestID: m.Header.RequestID, ResponseTo: m.Header.ResponseTo, OpCode: OpMsg})
	dst = binary.LittleEndian.AppendUint32(dst, uint32(m.Flags))
	at := min(max(m.BodyIndex, 0), len(m.Sequences))
	for _, s := range m.Sequences[:at] {
		dst = appendSequence(dst, s)
	}
	dst = append(dst, 0)
	dst = append(dst, m.Body...)
	for _, s := range m.Sequences[at:] {
		dst = appendSequence(dst, s)
	}
	if m.ChecksumPresent() {
		dst = append(dst, 0, 0, 0, 0)
		setLength(dst, start)
		sum := crc32.Checksum(dst[start:len(dst)-4], castagnoli)
		binary.LittleEndian.PutUint32(dst[len(dst)-4:], sum)
		return dst
	}
	setLength(dst, start)
	return dst
}

// appendSequence appends s as a kind 1 section.
func appendSequence(dst []byte, s Sequence) []byte {
	dst = append(dst, 1)
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = append(dst, s.Identifier...)
	dst = append(dst, 0)
	for _, d := range s.Documents {
		dst = append(dst, d...)
	}
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at))
	return dst
}

// ReplyMsg returns an OP_MSG reply to the request whose header is req:
// responseTo is req.RequestID, requestID is requestID (the listener's own
// counter), flagBits zero (no checksum, no moreToCome), body the one kind 0
// section. A denial is ReplyMsg(req, id, {ok: 0, errmsg, code, codeName}).
func ReplyMsg(req Header, requestID int32, body bsoncore.Document) []byte {
	m := Msg{Header: Header{RequestID: requestID, ResponseTo: req.RequestID}, Body: body}
	return m.Append(make([]byte, 0, HeaderLen+4+1+len(body)))
}

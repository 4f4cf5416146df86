package mongodb

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
)

// replyOf makes an upstream reply of kind form holding result document
// d: a find's first batch, a compressed getMore batch with a checksum, a
// findAndModify's value, a legacy OP_REPLY, a distinct's values (d and
// its bytes as a string), or d itself taken as a whole message (form 5
// and up).
func replyOf(d []byte, form uint8) []byte {
	switch form {
	case 0:
		return opMsg(2, 0, cursorReply("firstBatch", 77, d))
	case 1:
		c, _ := wire.Compress(opMsg(4, wire.ChecksumPresent, cursorReply("nextBatch", 0, d)), wire.CompressorSnappy)
		return c
	case 2:
		return opMsg(5, 0, doc(func(b *bsoncore.DocumentBuilder) { b.AppendDocument("value", d).AppendDouble("ok", 1) }))
	case 4:
		return opMsg(6, 0, doc(func(b *bsoncore.DocumentBuilder) {
			b.AppendArray("values", bsoncore.NewArrayBuilder().AppendDocument(d).AppendString(string(d)).Build()).AppendDouble("ok", 1)
		}))
	case 3:
		return (&wire.Reply{Header: wire.Header{ResponseTo: 2}, Documents: []bsoncore.Document{cursorReply("firstBatch", 0, d)}}).Append(nil)
	}
	return d
}

// FuzzMaskReply masks any upstream reply (any result document in each
// kind of reply, or any bytes) under every entity (redact):
// a reply it takes is one the wire codec and the BSON decoder read back
// (documents valid to the last byte), and masking that reply again finds
// nothing (no value matching an entity survived in clear); anything else
// is refused, never a panic.
func FuzzMaskReply(f *testing.F) {
	for form := range uint8(5) {
		f.Add([]byte(person()), form)
	}
	f.Add(opMsg(2, 0, cursorReply("firstBatch", 77, person())), uint8(5))
	set, err := masking.Compile([]masking.Rule{{Name: "pii", Entities: masking.EntityNames(), Strategy: masking.Redact}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, d []byte, form uint8) {
		if form < 5 && wire.ValidateDocument(d) != nil {
			return // the wire codec refuses it before masking
		}
		r, err := maskReply(replyOf(d, form), set.For(domain.Analysis{}, domain.Facts{}), []string{"k"}, 1<<20)
		if err != nil {
			return
		}
		orig, err := wire.Decompress(r.Msg, 1<<20)
		if err != nil {
			t.Fatalf("the masked reply does not decompress: %v", err)
		}
		h, _ := wire.ParseHeader(orig)
		switch h.OpCode {
		case wire.OpMsg:
			m, err := wire.DecodeMsg(orig)
			if err != nil {
				t.Fatalf("the masked OP_MSG does not decode: %v", err)
			}
			if err := bson.Raw(m.Body).Validate(); err != nil {
				t.Fatalf("the masked body is not BSON: %v", err)
			}
		case wire.OpReply:
			if _, err := wire.DecodeReply(orig); err != nil {
				t.Fatalf("the masked OP_REPLY does not decode: %v", err)
			}
		}
		again := set.For(domain.Analysis{}, domain.Facts{})
		if _, err := maskReply(r.Msg, again, []string{"k"}, 1<<20); err != nil {
			t.Fatalf("the masked reply is refused: %v", err)
		}
		if c := again.Counts(); len(c) != 0 {
			t.Fatalf("masking the masked reply again masked %v: a value survived in clear", c)
		}
	})
}

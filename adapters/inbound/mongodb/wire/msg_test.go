package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strconv"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// withChecksum appends the CRC-32C of msg and fixes its length.
func withChecksum(msg []byte) []byte {
	msg = append(append([]byte(nil), msg...), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(msg, uint32(len(msg)))
	binary.LittleEndian.PutUint32(msg[len(msg)-4:], crc32.Checksum(msg[:len(msg)-4], crc32.MakeTable(crc32.Castagnoli)))
	return msg
}

func TestDecodeMsg(t *testing.T) {
	body := doc(t, `{"insert": "t", "$db": "test"}`)
	d1, d2 := doc(t, `{"_id": 1}`), doc(t, `{"_id": 2, "s": "x"}`)
	tests := []struct {
		name      string
		msg       []byte
		flags     MsgFlag
		seqs      []string // identifier:count
		bodyIndex int
	}{
		{name: "body only", msg: frame(7, 0, OpMsg, le32(0), []byte{0}, body)},
		{name: "body and one sequence", msg: frame(7, 0, OpMsg, le32(0), []byte{0}, body, []byte{1}, seq("documents", d1, d2)),
			seqs: []string{"documents:2"}},
		{name: "sequence before the body", msg: frame(7, 0, OpMsg, le32(0), []byte{1}, seq("documents", d1), []byte{0}, body),
			seqs: []string{"documents:1"}, bodyIndex: 1},
		{name: "two sequences, one empty", msg: frame(7, 0, OpMsg, le32(0), []byte{0}, body, []byte{1}, seq("ops", d1), []byte{1}, seq("nsInfo")),
			seqs: []string{"ops:1", "nsInfo:0"}},
		{name: "checksum present and right", msg: withChecksum(frame(7, 0, OpMsg, le32(1), []byte{0}, body, []byte{1}, seq("documents", d1))),
			flags: ChecksumPresent, seqs: []string{"documents:1"}},
		{name: "moreToCome", msg: frame(7, 0, OpMsg, le32(2), []byte{0}, body), flags: MoreToCome},
		{name: "exhaustAllowed and an unknown optional bit are kept", msg: frame(7, 0, OpMsg, le32(1<<16|1<<20), []byte{0}, body),
			flags: ExhaustAllowed | 1<<20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := DecodeMsg(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			if m.Header.RequestID != 7 || m.Flags != tt.flags || m.BodyIndex != tt.bodyIndex || !bytes.Equal(m.Body, body) {
				t.Fatalf("decoded %+v", m)
			}
			var seqs []string
			for _, s := range m.Sequences {
				seqs = append(seqs, s.Identifier+":"+itoa(len(s.Documents)))
			}
			if strings.Join(seqs, ",") != strings.Join(tt.seqs, ",") {
				t.Fatalf("sequences %v, want %v", seqs, tt.seqs)
			}
			if got := m.Append(nil); !bytes.Equal(got, tt.msg) {
				t.Fatalf("Append does not give back the message:\n got %x\nwant %x", got, tt.msg)
			}
			if m.MoreToCome() != (tt.flags&MoreToCome != 0) || m.ChecksumPresent() != (tt.flags&ChecksumPresent != 0) ||
				m.ExhaustAllowed() != (tt.flags&ExhaustAllowed != 0) {
				t.Fatalf("flag accessors disagree with %b", tt.flags)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestDecodeMsgRefuses(t *testing.T) {
	body := doc(t, `{"ping": 1, "$db": "admin"}`)
	good := frame(1, 0, OpMsg, le32(0), []byte{0}, body)
	badChecksum := withChecksum(frame(1, 0, OpMsg, le32(1), []byte{0}, body))
	badChecksum[len(badChecksum)-1] ^= 0xFF
	flipped := withChecksum(frame(1, 0, OpMsg, le32(1), []byte{0}, body))
	flipped[22] ^= 0x01 // inside the body: the checksum no longer matches
	nested := doc(t, `{"find": "t", "filter": {"a": "x"}}`)
	badNested := append([]byte(nil), nested...)
	badNested[bytes.Index(badNested, []byte("filter"))+7] = 0x7F // the filter's length overruns
	badBool := doc(t, `{"find": "t", "singleBatch": true}`)
	badBool[len(badBool)-2] = 2
	noNul := doc(t, `{"find": "abc"}`)
	noNul[len(noNul)-2] = 'x' // the string's NUL
	deep := nest(MaxDepth + 1)
	tests := []struct {
		name string
		msg  []byte
		want string
	}{
		{"another opCode", frame(1, 0, OpQuery, le32(0), []byte{0}, body), "is not OP_MSG"},
		{"length disagrees", good[:len(good)-1], "messageLength"},
		{"header only", frame(1, 0, OpMsg), "no flagBits"},
		{"unknown required flag bit", frame(1, 0, OpMsg, le32(1<<2), []byte{0}, body), "unknown required flagBits 0x4"},
		{"checksum wrong", badChecksum, "checksum mismatch"},
		{"a body byte changed under a checksum", flipped, "checksum mismatch"},
		{"checksumPresent without room for it", frame(1, 0, OpMsg, le32(1), []byte{0, 0}), "no checksum"},
		{"no body", frame(1, 0, OpMsg, le32(0)), "no kind 0 section"},
		{"only a sequence", frame(1, 0, OpMsg, le32(0), []byte{1}, seq("documents", body)), "no kind 0 section"},
		{"two bodies", frame(1, 0, OpMsg, le32(0), []byte{0}, body, []byte{0}, body), "more than one kind 0"},
		{"section kind 2", frame(1, 0, OpMsg, le32(0), []byte{0}, body, []byte{2}, le32(5)), "unknown section kind 2"},
		{"trailing byte", frame(1, 0, OpMsg, le32(0), []byte{0}, body, []byte{0}), "runs past"},
		{"body overruns the message", frame(1, 0, OpMsg, le32(0), []byte{0}, body[:len(body)-1]), "runs past"},
		{"body's nested document overruns", frame(1, 0, OpMsg, le32(0), []byte{0}, badNested), "invalid BSON"},
		{"boolean 2", frame(1, 0, OpMsg, le32(0), []byte{0}, badBool), "boolean neither 0 nor 1"},
		{"string without its NUL", frame(1, 0, OpMsg, le32(0), []byte{0}, noNul), "invalid BSON"},
		{"nested deeper than MaxDepth", frame(1, 0, OpMsg, le32(0), []byte{0}, deep), "nested more than 200"},
		{"sequence size past the message", frame(1, 0, OpMsg, le32(0), []byte{0}, body, []byte{1}, le32(99), []byte("d\x00")), "outside"},
		{"sequence size negative", frame(1, 0, OpMsg, le32(0), []byte{0}, body, []byte{1}, le32(0xFFFFFFFF), []byte("d\x00")), "outside"},
		{"sequence size too small", frame(1, 0, OpMsg, le32(0), []byte{0}, body, []byte{1}, le32(4)), "outside"},
		{"sequence without its size", frame(1, 0, OpMsg, le32(0), []byte{0}, body, []byte{1, 9}), "no size"},
		{"identifier not terminated", frame(1, 0, OpMsg, le32(0), []byte{0}, body, []byte{1}, le32(7), []byte("abc")), "not terminated"},
		{"document in a sequence cut", frame(1, 0, OpMsg, le32(0), []byte{0}, body, []byte{1}, func() []byte {
			s := seq("documents", body)
			binary.LittleEndian.PutUint32(s, uint32(len(s)-1))
			return s[:len(s)-1]
		}()), "runs past"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := DecodeMsg(tt.msg)
			if m != nil {
				t.Fatalf("decoded %+v", m)
			}
			wantMalformed(t, err, tt.want)
		})
	}
	if _, err := DecodeMsg(frame(1, 0, OpMsg, le32(0), []byte{0}, nest(MaxDepth))); err != nil {
		t.Fatalf("documents exactly MaxDepth deep: %v", err)
	}
	if _, err := DecodeMsg(badChecksum); !errors.Is(err, ErrChecksum) {
		t.Fatalf("a wrong checksum: %v is not ErrChecksum", err)
	}
}

func TestMsgAppendComputesChecksum(t *testing.T) {
	m := &Msg{Header: Header{RequestID: 3}, Flags: ChecksumPresent, Body: doc(t, `{"ok": 1}`),
		Sequences: []Sequence{{Identifier: "documents", Documents: []bsoncore.Document{doc(t, `{"a": 1}`)}}}}
	b := m.Append([]byte("prefix"))
	if string(b[:6]) != "prefix" {
		t.Fatal("Append overwrote dst")
	}
	got, err := DecodeMsg(b[6:])
	if err != nil {
		t.Fatal(err)
	}
	if !got.ChecksumPresent() || len(got.Sequences) != 1 {
		t.Fatalf("decoded %+v", got)
	}
	b[len(b)-5] ^= 1
	if _, err := DecodeMsg(b[6:]); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("a changed byte under the checksum: %v", err)
	}
}

func TestReplyMsg(t *testing.T) {
	req := Header{Length: 99, RequestID: 42, ResponseTo: 0, OpCode: OpMsg}
	denial := doc(t, `{"ok": 0, "errmsg": "held", "code": 13, "codeName": "Unauthorized"}`)
	b := ReplyMsg(req, 9, denial)
	m, err := DecodeMsg(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.ResponseTo != 42 || m.Header.RequestID != 9 || m.Flags != 0 || !bytes.Equal(m.Body, denial) || len(m.Sequences) != 0 {
		t.Fatalf("reply %+v", m)
	}
}

// TestDecodeMsgCaptures: every OP_MSG real clients sent decodes, and
// encodes back to the same bytes.
func TestDecodeMsgCaptures(t *testing.T) {
	n := 0
	for name, raw := range captures(t) {
		msg, err := Decompress(raw, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if h, _ := ParseHeader(msg); h.OpCode != OpMsg {
			continue
		}
		m, err := DecodeMsg(msg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(m.Append(nil), msg) {
			t.Fatalf("%s: Append differs", name)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d OP_MSG captures", n)
	}
}

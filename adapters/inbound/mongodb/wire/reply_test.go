package wire

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func TestReply(t *testing.T) {
	a, b := doc(t, `{"ismaster": true, "maxMessageSizeBytes": 48000000, "ok": 1}`), doc(t, `{"x": 1}`)
	for _, docs := range [][]bsoncore.Document{nil, {a}, {a, b}} {
		r := &Reply{Header: Header{RequestID: 3, ResponseTo: 8}, Flags: AwaitCapable, CursorID: -5, StartingFrom: 2, Documents: docs}
		msg := r.Append(nil)
		got, err := DecodeReply(msg)
		if err != nil {
			t.Fatal(err)
		}
		if got.Header.ResponseTo != 8 || got.CursorID != -5 || got.StartingFrom != 2 || got.Flags != AwaitCapable || len(got.Documents) != len(docs) {
			t.Fatalf("decoded %+v", got)
		}
		if !bytes.Equal(got.Append(nil), msg) {
			t.Fatal("Append does not give back the message")
		}
	}
}

const AwaitCapable ReplyFlag = 8

func TestReplyQuery(t *testing.T) {
	denial := doc(t, `{"ok": 0, "errmsg": "no", "code": 13, "codeName": "Unauthorized"}`)
	msg := ReplyQuery(Header{RequestID: 77, OpCode: OpQuery}, 1, denial)
	r, err := DecodeReply(msg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.ResponseTo != 77 || r.Header.RequestID != 1 || r.Flags != 0 || r.CursorID != 0 || len(r.Documents) != 1 || !bytes.Equal(r.Documents[0], denial) {
		t.Fatalf("reply %+v", r)
	}
}

func TestDecodeReplyRefuses(t *testing.T) {
	d := doc(t, `{"ok": 1}`)
	fixed := func(n uint32) []byte { return cat(le32(0), make([]byte, 8), le32(0), le32(n)) }
	tests := []struct {
		name, want string
		msg        []byte
	}{
		{"short", "20 fixed bytes", frame(1, 0, OpReply, make([]byte, 19))},
		{"numberReturned says more", "numberReturned 2 but 1", frame(1, 0, OpReply, fixed(2), d)},
		{"numberReturned says fewer", "numberReturned 0 but 1", frame(1, 0, OpReply, fixed(0), d)},
		{"numberReturned negative", "numberReturned -1", frame(1, 0, OpReply, fixed(0xFFFFFFFF), d)},
		{"numberReturned huge", "numberReturned 100000", frame(1, 0, OpReply, fixed(100000), d)},
		{"document cut", "runs past", frame(1, 0, OpReply, fixed(1), d[:len(d)-1])},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeReply(tt.msg)
			if got != nil {
				t.Fatalf("decoded %+v", got)
			}
			wantMalformed(t, err, tt.want)
		})
	}
}

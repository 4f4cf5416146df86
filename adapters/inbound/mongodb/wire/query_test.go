package wire

import (
	"bytes"
	"strings"
	"testing"
)

func TestDecodeQuery(t *testing.T) {
	q := doc(t, `{"isMaster": 1, "helloOk": true, "client": {"application": {"name": "app"}}}`)
	sel := doc(t, `{"ok": 1}`)
	tests := []struct {
		name  string
		msg   []byte
		ns    string
		sel   bool
		db    string
		isCmd bool
	}{
		{name: "legacy handshake", msg: frame(5, 0, OpQuery, le32(4), []byte("admin.$cmd\x00"), le32(0), le32(0xFFFFFFFF), q),
			ns: "admin.$cmd", db: "admin", isCmd: true},
		{name: "with a returnFieldsSelector", msg: frame(5, 0, OpQuery, le32(0), []byte("test.t\x00"), le32(3), le32(10), q, sel),
			ns: "test.t", sel: true, db: "test"},
		{name: "no dot", msg: frame(5, 0, OpQuery, le32(0), []byte("admin\x00"), le32(0), le32(1), q), ns: "admin", db: "admin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeQuery(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			if got.FullCollectionName != tt.ns || got.Database() != tt.db || got.IsCommand() != tt.isCmd ||
				!bytes.Equal(got.Query, q) || (got.ReturnFieldsSelector != nil) != tt.sel {
				t.Fatalf("decoded %+v", got)
			}
			if !bytes.Equal(got.Append(nil), tt.msg) {
				t.Fatal("Append does not give back the message")
			}
		})
	}
}

func TestDecodeQueryRefuses(t *testing.T) {
	q := doc(t, `{"isMaster": 1}`)
	tests := []struct {
		name, want string
		msg        []byte
	}{
		{"flags missing", "no flags", frame(1, 0, OpQuery, []byte{1, 2})},
		{"collection name not terminated", "not terminated", frame(1, 0, OpQuery, le32(0), []byte("admin.$cmd"))},
		{"numbers missing", "numberToSkip", frame(1, 0, OpQuery, le32(0), []byte("a.$cmd\x00"), le32(0))},
		{"query missing", "query: document runs past", frame(1, 0, OpQuery, le32(0), []byte("a.$cmd\x00"), le32(0), le32(1))},
		{"query cut", "query: document runs past", frame(1, 0, OpQuery, le32(0), []byte("a.$cmd\x00"), le32(0), le32(1), q[:len(q)-1])},
		{"bytes after the selector", "bytes after", frame(1, 0, OpQuery, le32(0), []byte("a.$cmd\x00"), le32(0), le32(1), q, q, []byte{0})},
		{"selector cut", "returnFieldsSelector", frame(1, 0, OpQuery, le32(0), []byte("a.$cmd\x00"), le32(0), le32(1), q, []byte{5, 0})},
		{"an OP_MSG", "is not OP_QUERY", frame(1, 0, OpMsg, le32(0), []byte{0}, q)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeQuery(tt.msg)
			if got != nil {
				t.Fatalf("decoded %+v", got)
			}
			wantMalformed(t, err, tt.want)
		})
	}
}

// TestDecodeQueryCaptures: the legacy handshakes mongosh and the Node
// driver really send decode and encode back.
func TestDecodeQueryCaptures(t *testing.T) {
	n := 0
	for name, raw := range captures(t) {
		if h, _ := ParseHeader(raw); h.OpCode != OpQuery {
			continue
		}
		q, err := DecodeQuery(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !q.IsCommand() || q.Database() != "admin" || !strings.EqualFold(string(q.Query[5:13]), "ismaster") {
			t.Fatalf("%s: %+v", name, q)
		}
		if !bytes.Equal(q.Append(nil), raw) {
			t.Fatalf("%s: Append differs", name)
		}
		n++
	}
	if n < 2 {
		t.Fatalf("only %d OP_QUERY captures", n)
	}
}

package wire

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// doc builds a BSON document from relaxed Extended JSON, keys in order.
func doc(t testing.TB, js string) bsoncore.Document {
	t.Helper()
	var raw bson.Raw
	if err := bson.UnmarshalExtJSON([]byte(js), false, &raw); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return bsoncore.Document(raw)
}

// frame builds a message: a header with the right length, then body.
func frame(reqID, respTo int32, op OpCode, body ...[]byte) []byte {
	b := AppendHeader(nil, Header{RequestID: reqID, ResponseTo: respTo, OpCode: op})
	for _, p := range body {
		b = append(b, p...)
	}
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// seq builds a kind 1 section payload (without the kind byte).
func seq(id string, docs ...[]byte) []byte {
	b := cat(le32(0), []byte(id), []byte{0})
	for _, d := range docs {
		b = append(b, d...)
	}
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

// wantMalformed fails unless err is a *MalformedError whose reason says
// want.
func wantMalformed(t *testing.T, err error, want string) {
	t.Helper()
	var me *MalformedError
	if !errors.As(err, &me) {
		t.Fatalf("error %v (%T), want *MalformedError %q", err, err, want)
	}
	if !strings.Contains(me.Error(), want) {
		t.Fatalf("error %q, want it to say %q", me.Error(), want)
	}
}

// captures returns the messages real clients sent (testdata/drivers).
func captures(t testing.TB) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "drivers", "*", "*.bin"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no captures in testdata/drivers: %v", err)
	}
	sort.Strings(names)
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(n, filepath.Join("testdata", "drivers")+"/")] = b
	}
	return out
}

// nest returns a document n levels deep: {"a": {"a": … {"a": 1}}}.
func nest(n int) bsoncore.Document {
	d := bsoncore.NewDocumentBuilder().AppendInt32("a", 1).Build()
	for i := 1; i < n; i++ {
		d = bsoncore.NewDocumentBuilder().AppendDocument("a", d).Build()
	}
	return d
}

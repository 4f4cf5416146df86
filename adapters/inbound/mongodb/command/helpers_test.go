package command

import (
	b64 "encoding/base64"
	"strconv"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
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

// sequence is "identifier" then one Extended JSON document per element.
func sequence(t testing.TB, id string, docs ...string) wire.Sequence {
	s := wire.Sequence{Identifier: id}
	for _, d := range docs {
		s.Documents = append(s.Documents, doc(t, d))
	}
	return s
}

// msg encodes and decodes an OP_MSG, as the listener would receive it.
func msg(t testing.TB, body string, seqs ...wire.Sequence) *wire.Msg {
	t.Helper()
	m := &wire.Msg{Header: wire.Header{RequestID: 1}, Body: doc(t, body), Sequences: seqs}
	got, err := wire.DecodeMsg(m.Append(nil))
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return got
}

// analyseJSON analyses one OP_MSG.
func analyseJSON(t testing.TB, body string, seqs ...wire.Sequence) *Command {
	t.Helper()
	c, err := FromMsg(msg(t, body, seqs...))
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return c
}

func join(s []string) string { return strings.Join(s, ",") }

func itoa(n int) string { return strconv.Itoa(n) }

func b64String(s string) string { return b64.StdEncoding.EncodeToString([]byte(s)) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }

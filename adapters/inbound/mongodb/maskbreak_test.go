package mongodb

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// mapReduce with out: {inline: 1} answers with its documents in results,
// not in a cursor: an email the map function emits (emit(this.email, 1),
// or the whole document as the value) reached the client in clear.
func TestMaskBreakMapReduceInline(t *testing.T) {
	l := maskListener(t, &auditLines{}, piiRule)
	mr := request(2, func(b *bsoncore.DocumentBuilder) {
		b.AppendString("mapReduce", "t").AppendJavaScript("map", "function() { emit(this.email, 1) }").
			AppendJavaScript("reduce", "function(k, v) { return Array.sum(v) }").
			AppendDocument("out", doc(func(o *bsoncore.DocumentBuilder) { o.AppendInt32("inline", 1) })).
			AppendString("$db", "test")
	})
	res := bsoncore.NewArrayBuilder().AppendDocument(doc(func(d *bsoncore.DocumentBuilder) {
		d.AppendString("_id", "alice@example.com").AppendDouble("value", 1)
	})).AppendDocument(doc(func(d *bsoncore.DocumentBuilder) {
		d.AppendString("_id", "x").AppendDocument("value", person())
	})).Build()
	body := doc(func(b *bsoncore.DocumentBuilder) { b.AppendArray("results", res).AppendDouble("ok", 1) })
	out := roundTrip(t, l, &cursors{}, mr, reply(2, body))
	if bytes.Contains(out, []byte("alice@")) || !bytes.Contains(out, []byte("<EMAIL_ADDRESS>")) {
		t.Fatalf("mapReduce results in clear: %q", out)
	}
}

package mongodb

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// BenchmarkFindThroughSession is the listener's own CPU per allowed
// command: decode, analysis, the gate (no rule matches a find) and the
// write to the upstream, for a find by _id as drivers send it.
func BenchmarkFindThroughSession(b *testing.B) {
	find := opMsg(2, 0, doc(func(d *bsoncore.DocumentBuilder) {
		d.AppendString("find", "items").AppendDocument("filter", doc(func(f *bsoncore.DocumentBuilder) { f.AppendInt32("_id", 42) })).
			AppendInt32("limit", 1).AppendBoolean("singleBatch", true).
			AppendDocument("lsid", doc(func(l *bsoncore.DocumentBuilder) { l.AppendBinary("id", 4, bytes.Repeat([]byte{1}, 16)) })).
			AppendString("$db", "bench")
	}))
	s := testSession(testListener(b), nil, &bytes.Buffer{}, nil)
	b.ReportAllocs()
	b.SetBytes(int64(len(find)))
	for b.Loop() {
		if err := s.handle(find); err != nil {
			b.Fatal(err)
		}
	}
}

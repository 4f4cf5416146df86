package command

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// session are the fields the Go driver adds to every command.
const session = `"lsid": {"id": {"$binary": {"base64": "v6i+gXTqRA2tvZaGMunxpA==", "subType": "04"}}}, "$clusterTime": {"clusterTime": {"$timestamp": {"t": 1796099866, "i": 1}}, "signature": {"hash": {"$binary": {"base64": "AAAAAAAAAAAAAAAAAAAAAAAAAAA=", "subType": "00"}}, "keyId": {"$numberLong": "0"}}}, "$db": "test"`

// benchDecodeAnalyse measures what the listener does per client message:
// decode the OP_MSG, then analyse it (actions, targets, canonical bytes).
func benchDecodeAnalyse(b *testing.B, raw []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		m, err := wire.DecodeMsg(raw)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := FromMsg(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFindByID: a find by _id as the Go driver sends it.
func BenchmarkFindByID(b *testing.B) {
	m := msg(b, `{"find": "t", "filter": {"_id": {"$oid": "6b0e4e9adb6595edbdb7aa59"}}, "limit": {"$numberLong": "1"}, "singleBatch": true, `+session+`}`)
	benchDecodeAnalyse(b, m.Append(nil))
}

// BenchmarkInsertOne: one small document in a document sequence.
func BenchmarkInsertOne(b *testing.B) {
	m := msg(b, `{"insert": "t", "ordered": true, `+session+`}`,
		sequence(b, "documents", `{"_id": {"$oid": "6b0e4e9adb6595edbdb7aa59"}, "name": "ada", "n": 1, "tags": ["a", "b"]}`))
	benchDecodeAnalyse(b, m.Append(nil))
}

// BenchmarkInsertMany1000: 1,000 documents in a document sequence.
func BenchmarkInsertMany1000(b *testing.B) {
	docs := make([]string, 1000)
	for i := range docs {
		docs[i] = `{"_id": ` + strconv.Itoa(i) + `, "name": "` + strings.Repeat("x", 40) + `", "n": 1, "tags": ["a", "b"]}`
	}
	m := msg(b, `{"insert": "t", "ordered": true, `+session+`}`, sequence(b, "documents", docs...))
	benchDecodeAnalyse(b, m.Append(nil))
}

// BenchmarkAggregate: a three-stage pipeline with a $lookup.
func BenchmarkAggregate(b *testing.B) {
	m := msg(b, `{"aggregate": "t", "pipeline": [{"$match": {"a": {"$gt": 1}}}, {"$lookup": {"from": "u", "localField": "a", "foreignField": "b", "as": "x"}}, {"$sort": {"a": -1}}], "cursor": {}, `+session+`}`)
	benchDecodeAnalyse(b, m.Append(nil))
}

// BenchmarkDisplayInsertMany1000: the approver's rendering of a 1,000-
// document insert costs what the first 4 KB cost, not the whole command.
func BenchmarkDisplayInsertMany1000(b *testing.B) {
	docs := make([]string, 1000)
	for i := range docs {
		docs[i] = `{"_id": ` + strconv.Itoa(i) + `, "name": "` + strings.Repeat("x", 40) + `", "n": 1, "tags": ["a", "b"]}`
	}
	c, err := FromMsg(msg(b, `{"insert": "t", "ordered": true, `+session+`}`, sequence(b, "documents", docs...)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Display(0)
	}
}

// BenchmarkDisplayFind: the rendering of a typical find.
func BenchmarkDisplayFind(b *testing.B) {
	c, err := FromMsg(msg(b, `{"find": "t", "filter": {"_id": {"$oid": "6b0e4e9adb6595edbdb7aa59"}}, "limit": {"$numberLong": "1"}, "singleBatch": true, `+session+`}`))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Display(0)
	}
}

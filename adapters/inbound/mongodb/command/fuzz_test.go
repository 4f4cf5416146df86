package command

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/domain"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// FuzzCommand: the analysis never panics, on any OP_MSG the codec accepts
// (the fuzzer's bytes framed as an OP_MSG body) and on any raw document
// handed to it unvalidated; when it answers, its canonical bytes are one
// valid BSON document and the display renders.
func FuzzCommand(f *testing.F) {
	seeds := []string{
		`{"find": "t", "filter": {"$where": "1"}, "$db": "test"}`,
		`{"aggregate": "t", "pipeline": [{"$lookup": {"from": "u", "as": "x", "pipeline": [{"$out": {"db": "a", "coll": "b"}}]}}], "$db": "test"}`,
		`{"explain": {"findAndModify": "t", "remove": true}, "$db": "test"}`,
		`{"hello": 1, "client": {"application": {"name": "x"}}, "speculativeAuthenticate": {"saslStart": 1, "mechanism": "SCRAM-SHA-256", "payload": {"$binary": {"base64": "biwsbj1hLHI9eA==", "subType": "00"}}}, "$db": "admin"}`,
		`{"bulkWrite": 1, "ops": [{"delete": 0, "filter": {}}], "nsInfo": [{"ns": "a.b"}], "$db": "admin"}`,
		`{"mapReduce": "t", "out": {"replace": "r", "db": "o"}, "$db": "test"}`,
		`{"getMore": {"$numberLong": "1"}, "collection": "t", "$db": "test"}`,
		`{"renameCollection": "a.b", "to": "c.d", "$db": "admin"}`,
		`{"find": "t", "readConcern": {"afterClusterTime": {"$timestamp": {"t": 1, "i": 1}}}, "limit": 2.0, "$db": "test"}`,
		`{"delete": "t", "deletes": [{"q": {"$or": [{"a": 1}, {"$expr": {"$and": [true, {"$not": ["$a"]}]}}]}, "limit": 0}], "$db": "test"}`,
		`{"update": "t", "updates": [{"q": {"$nor": [{"_id": {"$exists": false}}], "b": {"$not": {"$in": []}}}, "u": {}, "multi": true}], "$db": "test"}`,
		`{"delete": "t", "deletes": [{"q": {"$expr": {"$getField": {"field": "a", "input": {"$literal": "$$ROOT"}}}}, "limit": 0}], "$db": "test"}`,
		`{"createIndexes": "t", "indexes": [{"key": {"a": 1}, "name": "a", "expireAfterSeconds": 1}], "$db": "test"}`,
		`{"applyOps": [{"op": "c", "ns": "a.$cmd", "o": {"applyOps": [{"op": "c", "ns": "a.$cmd", "o": {"collMod": "t", "cappedSize": 1}}, {"op": "d", "ns": "a.t", "o": {"_id": {"$exists": 1}}}]}}, {"op": "c", "ns": "a.$cmd", "o": {"renameCollection": "a.b", "to": "a.c", "dropTarget": 1}}], "$db": "admin"}`,
		`{"mapReduce": "t", "out": {"inline": 1, "normal": "r"}, "$db": "test"}`,
	}
	for _, s := range seeds {
		body := doc(f, s)
		f.Add(append(append([]byte{0, 0, 0, 0}, 0), body...))
	}
	names, _ := filepath.Glob(filepath.Join("..", "wire", "testdata", "drivers", "*", "*.bin"))
	for _, n := range names {
		raw, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		if msg, err := wire.Decompress(raw, 0); err == nil {
			if h, _ := wire.ParseHeader(msg); h.OpCode == wire.OpMsg {
				f.Add(msg[wire.HeaderLen:])
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		msg := wire.AppendHeader(nil, wire.Header{OpCode: wire.OpMsg})
		msg = append(msg, b...)
		binary.LittleEndian.PutUint32(msg, uint32(len(msg)))
		if m, err := wire.DecodeMsg(msg); err == nil {
			if c, err := FromMsg(m); err == nil {
				check(t, c)
			}
			q := &wire.Query{FullCollectionName: "admin.$cmd", Query: m.Body}
			if c, err := FromQuery(q); err == nil {
				check(t, c)
			}
		}
		// Unvalidated: the body as whatever the bytes after flags and kind are.
		if len(b) > 5 {
			if c, err := FromMsg(&wire.Msg{Body: b[5:]}); err == nil {
				_ = c.Display(64)
			}
		}
	})
}

func check(t *testing.T, c *Command) {
	t.Helper()
	if err := wire.ValidateDocument(c.CanonicalBytes()); err != nil {
		t.Fatalf("canonical bytes are not valid BSON: %v", err)
	}
	if err := bson.Raw(c.CanonicalBytes()).Validate(); err != nil {
		t.Fatalf("canonical bytes are not valid BSON: %v", err)
	}
	_ = c.Display(64)
	sameAsDriver(t, c.CanonicalBytes())
	if len(c.Analysis.Actions) == 0 {
		t.Fatal("no action")
	}
	for _, a := range c.Analysis.Actions {
		if !IsAction(a) {
			t.Fatalf("action %s outside the vocabulary", a)
		}
	}
	// Every write carries an effect a rule can hold, and only words of
	// the vocabulary.
	if c.Write && len(c.Analysis.Effects) == 0 {
		t.Fatalf("write %v with no effect", c.Analysis.Actions)
	}
	for _, e := range c.Analysis.Effects {
		if !domain.IsEffect(e) {
			t.Fatalf("effect %s outside the vocabulary", e)
		}
	}
}

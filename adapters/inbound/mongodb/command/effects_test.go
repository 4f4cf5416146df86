package command

import (
	"slices"
	"sort"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/rulesdoc"
)

// TestEffectsTable: every mongodb row of docs/rules.md's effects table,
// read as `sidecar explain` reads it (FromExtJSON), reports exactly the
// row's effects.
func TestEffectsTable(t *testing.T) {
	rulesdoc.Check(t, "mongodb", 20, func(s string) ([]string, error) {
		c, err := FromExtJSON(s)
		if err != nil {
			return nil, err
		}
		return c.Analysis.Effects, nil
	})
}

// TestEveryActionHasEffects: each action of the vocabulary has a row in
// actionEffects or is one of the actions with no effect of their own, so
// a new command cannot be added without deciding its effects.
func TestEveryActionHasEffects(t *testing.T) {
	for _, a := range Actions() {
		_, ok := actionEffects[a]
		if ok == noEffect[a] {
			t.Errorf("action %s: in actionEffects %v, in noEffect %v: want exactly one", a, ok, noEffect[a])
		}
		for _, e := range actionEffects[a] {
			if !domain.IsEffect(e) {
				t.Errorf("action %s: %q is not an effect", a, e)
			}
		}
	}
}

// TestUnboundedFilters: which delete filters reach every document, as
// mongod's match parser reads them (deleteMany, limit 0).
func TestUnboundedFilters(t *testing.T) {
	for _, tc := range []struct {
		q         string
		unbounded bool
	}{
		{`{}`, true},
		{`{"a": 1}`, false},
		{`{"a": {}}`, false}, // equality with an empty document
		{`{"$comment": "x"}`, true},
		{`{"$comment": "x", "a": 1}`, false},
		{`{"$and": [{}, {}]}`, true},
		{`{"$and": [{}, {"a": 1}]}`, false},
		{`{"$or": [{"a": 1}, {"$where": "true"}]}`, true},
		{`{"$or": [{"a": 1}, {"b": 2}]}`, false},
		{`{"$nor": [{"$alwaysFalse": 1}]}`, true},
		{`{"$nor": [{}]}`, false},
		{`{"$nor": [{"a": 1}]}`, false},
		{`{"$alwaysTrue": 1}`, true},
		{`{"$expr": 1}`, true},
		{`{"$expr": 0}`, false},
		{`{"$expr": false}`, false},
		{`{"$expr": null}`, false},
		{`{"$expr": "x"}`, true},
		{`{"$expr": ""}`, true},
		{`{"$expr": []}`, true},
		{`{"$expr": {}}`, true},
		{`{"$expr": {"x": "$a"}}`, true}, // an object is true
		{`{"$expr": "$a"}`, false},
		{`{"$expr": "$$ROOT.a"}`, false},
		{`{"$expr": "$$NOW"}`, true},
		{`{"$expr": {"$literal": false}}`, false},
		{`{"$expr": {"$literal": "$a"}}`, true},
		{`{"$expr": {"$eq": [1, 1]}}`, true},
		{`{"$expr": {"$eq": [1, 2]}}`, true}, // not evaluated: counted as all
		{`{"$expr": {"$lt": [{"$rand": {}}, 0.99]}}`, true},
		{`{"$expr": {"$or": [true, "$a"]}}`, true},
		{`{"$expr": {"$and": [true, "$a"]}}`, false},
		{`{"$expr": {"$not": [false]}}`, true},
		{`{"$expr": {"$getField": "a"}}`, false},
		{`{"$expr": {"$getField": {"field": "a", "input": {"a": true}}}}`, true},
		{`{"$jsonSchema": {}}`, true},
		{`{"$sampleRate": 1.0}`, true},
		{`{"$text": {"$search": "x"}}`, false},
		{`{"_id": {"$exists": true}}`, true},
		{`{"_id": {"$exists": 1}}`, true},
		{`{"_id": {"$exists": false}}`, false},
		{`{"a": {"$exists": true}}`, false},
		{`{"a": {"$nin": []}}`, true},
		{`{"a": {"$in": []}}`, false},
		{`{"a": {"$not": {"$in": []}}}`, true},
		{`{"a": {"$nin": [], "$gt": 1}}`, false},
		{`{"a": {"$ne": "none"}}`, false}, // data, as WHERE id > 0
		{`{"$expr": {"$eq": ["$a", "$a"]}}`, false},
	} {
		c, err := FromExtJSON(`{"delete": "t", "deletes": [{"q": ` + tc.q + `, "limit": 0}], "$db": "app"}`)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		if got := slices.Contains(c.Analysis.Effects, domain.EffectUnbounded); got != tc.unbounded {
			t.Errorf("deleteMany(%s): UNBOUNDED %v, want %v (effects %v)", tc.q, got, tc.unbounded, c.Analysis.Effects)
		}
	}
}

// TestEffectsOverTheWire: the effects come with the actions on a command
// read from an OP_MSG, deletes sent as a document sequence included (as
// drivers send them), and a statement list reaches UNBOUNDED when any of
// its statements does.
func TestEffectsOverTheWire(t *testing.T) {
	c := analyseJSON(t, `{"delete": "t", "$db": "app"}`,
		sequence(t, "deletes", `{"q": {"a": 1}, "limit": 0}`, `{"q": {}, "limit": 0}`))
	if got := sorted(c.Analysis.Effects); !slices.Equal(got, []string{"DELETE", "UNBOUNDED"}) {
		t.Errorf("effects %v, want DELETE, UNBOUNDED", got)
	}
	// A field that adds an effect counts in a document sequence too.
	c = analyseJSON(t, `{"createIndexes": "t", "$db": "app"}`,
		sequence(t, "indexes", `{"key": {"at": 1}, "name": "ttl", "expireAfterSeconds": 0}`))
	if got := sorted(c.Analysis.Effects); !slices.Equal(got, []string{"DELETE", "SCHEMA_CHANGE"}) {
		t.Errorf("createIndexes with a TTL index in a sequence: effects %v, want DELETE, SCHEMA_CHANGE", got)
	}
	c = analyseJSON(t, `{"hello": 1, "$db": "admin"}`)
	if len(c.Analysis.Effects) != 0 {
		t.Errorf("hello: effects %v, want none", c.Analysis.Effects)
	}
	c = analyseJSON(t, `{"bulkWrite": 1, "ops": [], "nsInfo": [], "$db": "admin"}`)
	if got := c.Analysis.Effects; !slices.Equal(got, []string{"UNKNOWN"}) {
		t.Errorf("bulkWrite with no readable op: effects %v, want UNKNOWN", got)
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

// TestInnerCommandEffects: a command sent inside applyOps (an oplog "c"
// entry) reports the effects it reports when sent on its own, the ones its
// fields add included, beside applyOps' ADMIN; nested applyOps too.
func TestInnerCommandEffects(t *testing.T) {
	for _, inner := range []string{
		`{"renameCollection": "app.a", "to": "app.b", "dropTarget": true}`,
		`{"renameCollection": "app.a", "to": "app.b", "dropTarget": {"$binary": {"base64": "AAAAAAAAAAAAAAAAAAAAAA==", "subType": "04"}}}`,
		`{"createIndexes": "t", "indexes": [{"key": {"at": 1}, "name": "ttl", "expireAfterSeconds": 0}]}`,
		`{"create": "t", "expireAfterSeconds": 60, "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`,
		`{"collMod": "t", "index": {"name": "ttl", "expireAfterSeconds": 5}}`,
		`{"collMod": "t", "cappedMax": 1}`,
		`{"collMod": "t", "cappedSize": 4096}`,
		`{"convertToCapped": "t", "size": 4096}`,
		`{"emptycapped": "t"}`,
		`{"dropDatabase": 1}`,
		`{"mapReduce": "t", "map": {"$code": "function() {}"}, "reduce": {"$code": "function() {}"}, "out": {"inline": 1}}`,
		`{"mapReduce": "t", "map": {"$code": "function() {}"}, "reduce": {"$code": "function() {}"}, "out": "r"}`,
	} {
		alone, err := FromExtJSON(inner[:len(inner)-1] + `, "$db": "app"}`)
		if err != nil {
			t.Fatalf("%s: %v", inner, err)
		}
		want := sorted(domain.AddEffects(slices.Clone(alone.Analysis.Effects), domain.EffectAdmin))
		entry := inner
		for level := 1; level <= maxApplyOpsDepth+1; level++ {
			entry = `{"applyOps": [{"op": "c", "ns": "app.$cmd", "o": ` + entry + `}]}`
			c, err := FromExtJSON(entry[:len(entry)-1] + `, "$db": "admin"}`)
			if err != nil {
				t.Fatalf("%s: %v", entry, err)
			}
			if got := sorted(c.Analysis.Effects); !slices.Equal(got, want) {
				t.Errorf("%s inside %d applyOps: effects %v, want %v", inner, level, got, want)
			}
		}
		// One level deeper than is read: UNKNOWN, never less.
		entry = `{"applyOps": [{"op": "c", "ns": "app.$cmd", "o": ` + entry + `}], "$db": "admin"}`
		c, err := FromExtJSON(entry)
		if err != nil {
			t.Fatalf("%s: %v", entry, err)
		}
		if !slices.Contains(c.Analysis.Effects, domain.EffectUnknown) {
			t.Errorf("%s inside %d applyOps: effects %v, want UNKNOWN among them", inner, maxApplyOpsDepth+2, c.Analysis.Effects)
		}
	}
}

package command

import (
	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// scan walks the command for server-side JavaScript and pipeline stages
// that write or read other collections. An insert's documents are data,
// not operators, and are not walked.
func (r *reading) scan() {
	first := true
	each(r.c.Body, func(key []byte, e bsoncore.Element) bool {
		if first && r.name != "explain" {
			first = false
			return true // the command's own value: a name or a number
		}
		first = false
		if r.name == "insert" && string(key) == "documents" {
			return true
		}
		r.walkValue(key, valueOf(key, e), 1)
		return true
	})
	for _, s := range r.c.Sequences {
		if r.name == "insert" && s.Identifier == "documents" {
			continue
		}
		for _, d := range s.Documents {
			r.walk(d, 1)
		}
	}
}

func (r *reading) walk(d bsoncore.Document, depth int) {
	if depth > wire.MaxDepth {
		return
	}
	each(d, func(key []byte, e bsoncore.Element) bool {
		r.walkValue(key, valueOf(key, e), depth)
		return true
	})
}

func (r *reading) walkValue(key []byte, v bsoncore.Value, depth int) {
	switch string(key) {
	case "$where", "$function", "$accumulator":
		r.function(string(key))
		r.action(ActionServerJS)
	case "$out", "$merge":
		r.function(string(key))
		// Also inside an explain: servers 3.6 and 4.0 run an explained
		// $out at executionStats verbosity (SERVER-38063).
		if r.name == "aggregate" {
			r.action(ActionAggregateWrite)
			r.c.Write = true
		}
		r.stageTarget(string(key), v)
	case "$lookup", "$graphLookup", "$unionWith":
		r.stageTarget(string(key), v)
	}
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		r.walk(v.Data, depth+1)
	case bsoncore.TypeJavaScript, bsoncore.TypeCodeWithScope:
		// BSON code in a filter or update runs on the server (e.g. a
		// $where given as Code rather than a string).
		r.action(ActionServerJS)
	}
}

// stageTarget adds the collection a stage names: $out: "c" | {db, coll};
// $merge: "c" | {into: "c" | {db, coll}}; $lookup and $graphLookup: from:
// "c" | {db, coll}; $unionWith: "c" | {coll}.
func (r *reading) stageTarget(stage string, v bsoncore.Value) {
	if s, ok := v.StringValueOK(); ok {
		r.collection("", s)
		return
	}
	d, ok := v.DocumentOK()
	if !ok {
		return
	}
	var ref bsoncore.Value
	switch stage {
	case "$out":
		ref = v
	case "$merge":
		ref = d.Lookup("into")
	case "$lookup", "$graphLookup":
		ref = d.Lookup("from")
	case "$unionWith":
		ref = d.Lookup("coll")
	}
	if s, ok := ref.StringValueOK(); ok {
		r.collection("", s)
	} else if rd, ok := ref.DocumentOK(); ok {
		db, _ := rd.Lookup("db").StringValueOK()
		coll, _ := rd.Lookup("coll").StringValueOK()
		if coll != "" {
			r.collection(db, coll)
		}
	}
}

package command

import (
	"strings"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Whether a write reaches every document (the UNBOUNDED effect): a delete
// statement of many (limit 0: deleteMany) or an update statement with
// multi: true (updateMany), in a delete, update or bulkWrite command, or an
// applyOps delete entry without b: true, whose
// filter matches every document whatever the data. The filter is read as
// mongod's match parser reads it, by its form only:
//
//   - {} matches all; clauses are ANDed; $and, $or, $nor combine;
//   - $expr holds an aggregation expression: a constant (true, 1, "x", [],
//     {}, {$literal: …}) is true or false for every document; one that
//     reads no field ($$NOW, $rand, a $function without arguments) cannot
//     be evaluated here and counts as matching all; one that reads a field
//     ("$a", $$ROOT, $$CURRENT) depends on the data;
//   - $where and $function bodies, $jsonSchema, $sampleRate and unknown
//     operators cannot be read: they count as matching all;
//   - a field condition depends on the data, except the forms true or
//     false for any document: {f: {$nin: []}}, {f: {$in: []}}, $not of
//     those, and {_id: {$exists: …}} (every document has an _id);
//   - $comment and $alwaysTrue match all, $alwaysFalse none.
//
// A condition that happens to match every document of a collection
// ({a: {$ne: "none"}}) is data, as `WHERE id > 0` is in SQL: not UNBOUNDED.
// docs/mongodb-listener.md, "Effects", says so for operators.

// reach is what a filter (or an expression) matches, read by its form.
type reach uint8

const (
	reachData  reach = iota // depends on the documents' values
	reachAll                // every document
	reachNone               // no document
	reachMaybe              // cannot be read: counted as every document
)

// maxWalkDepth bounds the walks over nested documents (mongod refuses
// deeper ones; the wire package refuses them before analysis).
const maxWalkDepth = wire.MaxDepth

// unbounded reports whether a statement of the command deletes or updates
// many documents with a filter that matches every one. Flags are read as
// mongod reads them (values.go); a value mongod refuses (the reading has
// refused the command already) reads as the wider statement.
func (r *reading) unbounded() bool {
	many := func(name string, v bsoncore.Value, k flagKind) bool {
		b, err := flag(name, v, k)
		return b || err != nil
	}
	switch r.name {
	case "delete":
		deletes, _, _ := r.field("deletes")
		for _, d := range deletes {
			if deleteLimitValue(d.Lookup("limit")) != 1 && matchesAll(d.Lookup("q")) {
				return true
			}
		}
	case "update":
		updates, _, _ := r.field("updates")
		for _, u := range updates {
			if many("multi", u.Lookup("multi"), idlBool) && matchesAll(u.Lookup("q")) {
				return true
			}
		}
	case "bulkwrite":
		ops, _, _ := r.field("ops")
		for _, op := range ops {
			e, err := op.IndexErr(0)
			if err != nil || (e.Key() != "delete" && e.Key() != "update") {
				continue
			}
			if many("multi", op.Lookup("multi"), idlBool) && matchesAll(op.Lookup("filter")) {
				return true
			}
		}
	case "applyops", "dotxn":
		// An oplog delete ("d") removes the documents its o matches:
		// older servers (3.6 among them) remove every match unless b
		// (justOne) is true.
		entries, _, _ := r.field(r.c.Name)
		for _, e := range entries {
			if op, _ := e.Lookup("op").StringValueOK(); op == "d" && !truthy(e.Lookup("b")) && matchesAll(e.Lookup("o")) {
				return true
			}
		}
	}
	return false
}

// matchesAll reports whether the filter q matches every document, or
// cannot be read (an absent or non-document q, which mongod refuses).
func matchesAll(q bsoncore.Value) bool {
	d, ok := q.DocumentOK()
	if !ok {
		return true
	}
	switch filterReach(d, 0) {
	case reachAll, reachMaybe:
		return true
	}
	return false
}

// filterReach reads a match document: its clauses ANDed.
func filterReach(d bsoncore.Document, depth int) reach {
	if depth > maxWalkDepth {
		return reachMaybe
	}
	var clauses []reach
	each(d, func(key []byte, e bsoncore.Element) bool {
		clauses = append(clauses, clauseReach(string(key), valueOf(key, e), depth))
		return true
	})
	return and(clauses)
}

// clauseReach reads one top-level clause of a match document.
func clauseReach(key string, v bsoncore.Value, depth int) reach {
	switch key {
	case "$and", "$or", "$nor":
		arr, ok := v.ArrayOK()
		if !ok {
			return reachMaybe // mongod refuses it
		}
		var parts []reach
		each(arr, func(k []byte, e bsoncore.Element) bool {
			if sub, ok := valueOf(k, e).DocumentOK(); ok {
				parts = append(parts, filterReach(sub, depth+1))
			} else {
				parts = append(parts, reachMaybe)
			}
			return true
		})
		if len(parts) == 0 {
			return reachMaybe // mongod refuses an empty list
		}
		switch key {
		case "$and":
			return and(parts)
		case "$or":
			return or(parts)
		}
		return not(or(parts))
	case "$expr":
		return exprReach(v, depth+1)
	case "$comment", "$alwaysTrue":
		return reachAll
	case "$alwaysFalse":
		return reachNone
	case "$text":
		return reachData
	}
	if strings.HasPrefix(key, "$") {
		// $where, $jsonSchema, $sampleRate, and what mongod refuses.
		return reachMaybe
	}
	return fieldReach(key, v, depth)
}

// fieldReach reads {key: v}: equality (data) unless v is a document of
// operators that are true or false for any document.
func fieldReach(key string, v bsoncore.Value, depth int) reach {
	d, ok := v.DocumentOK()
	if !ok || depth > maxWalkDepth {
		return reachData
	}
	first, err := d.IndexErr(0)
	if err != nil || !strings.HasPrefix(first.Key(), "$") {
		return reachData // equality with a document
	}
	var parts []reach
	each(d, func(k []byte, e bsoncore.Element) bool {
		ov := valueOf(k, e)
		switch string(k) {
		case "$nin", "$in":
			arr, ok := ov.ArrayOK()
			if n, _ := arr.Values(); ok && len(n) == 0 {
				if string(k) == "$nin" {
					parts = append(parts, reachAll)
				} else {
					parts = append(parts, reachNone)
				}
				return true
			}
		case "$exists":
			if key == "_id" {
				if truthy(ov) {
					parts = append(parts, reachAll)
				} else {
					parts = append(parts, reachNone)
				}
				return true
			}
		case "$not":
			parts = append(parts, not(fieldReach(key, ov, depth+1)))
			return true
		}
		parts = append(parts, reachData)
		return true
	})
	return and(parts)
}

// exprReach reads an aggregation expression as a filter: is it truthy
// for every document, none, or does it depend on the data?
func exprReach(v bsoncore.Value, depth int) reach {
	if depth > maxWalkDepth {
		return reachMaybe
	}
	switch v.Type {
	case bsoncore.TypeString:
		s, _ := v.StringValueOK()
		switch {
		case strings.HasPrefix(s, "$$"):
			if readsVariableOfDocument(s) {
				return reachData
			}
			return reachMaybe
		case strings.HasPrefix(s, "$"):
			return reachData // a field path
		}
		return reachAll // a non-empty or empty string literal is true
	case bsoncore.TypeArray:
		return reachAll // an array is true, whatever it holds
	case bsoncore.TypeEmbeddedDocument:
		d, _ := v.DocumentOK()
		first, err := d.IndexErr(0)
		if err != nil || !strings.HasPrefix(first.Key(), "$") {
			return reachAll // {} or an object expression: a document is true
		}
		op, arg := first.Key(), first.Value()
		args := func() []reach {
			if arr, ok := arg.ArrayOK(); ok {
				var out []reach
				each(arr, func(k []byte, e bsoncore.Element) bool {
					out = append(out, exprReach(valueOf(k, e), depth+1))
					return true
				})
				return out
			}
			return []reach{exprReach(arg, depth+1)}
		}
		switch op {
		case "$literal":
			return constReach(arg)
		case "$and":
			return and(args())
		case "$or":
			return or(args())
		case "$not":
			return not(and(args()))
		}
		if readsDocument(v, depth) {
			return reachData
		}
		return reachMaybe
	}
	return constReach(v)
}

// constReach is a constant's truth as aggregation coerces it to a boolean:
// false, null, undefined and numeric zeros are false; everything else true.
func constReach(v bsoncore.Value) reach {
	if truthy(v) {
		return reachAll
	}
	return reachNone
}

// readsVariableOfDocument reports whether "$$NAME" or "$$NAME.path" is the
// document itself ($$ROOT, $$CURRENT).
func readsVariableOfDocument(s string) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(s, "$$"), ".")
	return name == "ROOT" || name == "CURRENT"
}

// readsDocument reports whether an expression names a field of the
// document (a "$path" string, $$ROOT, $$CURRENT) or reads the current
// document implicitly ($getField without input). A $literal's content is
// not an expression.
func readsDocument(v bsoncore.Value, depth int) bool {
	if depth > maxWalkDepth {
		return false
	}
	switch v.Type {
	case bsoncore.TypeString:
		s, _ := v.StringValueOK()
		if strings.HasPrefix(s, "$$") {
			return readsVariableOfDocument(s)
		}
		return strings.HasPrefix(s, "$")
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		found := false
		each(v.Data, func(k []byte, e bsoncore.Element) bool {
			switch string(k) {
			case "$literal":
				return true
			case "$getField":
				// {$getField: "a"} and {field, input} without input read
				// the current document.
				arg := valueOf(k, e)
				d, ok := arg.DocumentOK()
				if !ok {
					found = true
					return false
				}
				in, err := d.LookupErr("input")
				found = err != nil || readsDocument(in, depth+1)
				return !found
			}
			found = readsDocument(valueOf(k, e), depth+1)
			return !found
		})
		return found
	}
	return false
}

// and combines conjoined clauses: none wins, then data, then maybe.
func and(parts []reach) reach {
	out := reachAll
	for _, p := range parts {
		switch {
		case p == reachNone:
			return reachNone
		case p == reachData:
			out = reachData
		case p == reachMaybe && out == reachAll:
			out = reachMaybe
		}
	}
	return out
}

// or combines alternatives: all wins, then maybe, then data.
func or(parts []reach) reach {
	out := reachNone
	for _, p := range parts {
		switch {
		case p == reachAll:
			return reachAll
		case p == reachMaybe:
			out = reachMaybe
		case p == reachData && out == reachNone:
			out = reachData
		}
	}
	return out
}

// not negates: all and none swap; data and maybe stay.
func not(r reach) reach {
	switch r {
	case reachAll:
		return reachNone
	case reachNone:
		return reachAll
	}
	return r
}

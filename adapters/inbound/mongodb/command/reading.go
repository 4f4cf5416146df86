package command

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// reading collects a command's actions, targets and functions in the
// order found, without repeats.
type reading struct {
	c                           *Command
	name                        string // lower case
	actions, targets, functions list
	explained                   bool     // inside an explain: reads, never writes
	depth                       int      // how many applyOps this command is inside
	inner                       []string // the effects of the commands inside it (applyOps' "c" entries)
	err                         error    // the first value mongod would refuse (values.go)
}

func newReading(c *Command) *reading {
	r := &reading{c: c, name: strings.ToLower(c.Name)}
	r.actions.items, r.targets.items = c.actionBuf[:0], c.targetBuf[:0]
	return r
}

func (r *reading) action(a string)   { r.actions.add(a) }
func (r *reading) function(f string) { r.functions.add(f) }

// collection adds db.coll (the command's database when db is empty).
func (r *reading) collection(db, coll string) {
	if db == "" {
		db = r.c.Database
	}
	if coll == "" {
		r.targets.add(db)
		return
	}
	if db == "" {
		r.targets.add(coll)
		return
	}
	r.targets.add(db + "." + coll)
}

// namespace adds a full "db.collection" as sent.
func (r *reading) namespace(ns string) { r.targets.add(ns) }

func (r *reading) target(kind targetKind, v bsoncore.Value) {
	switch kind {
	case targetColl:
		s, _ := v.StringValueOK()
		r.collection("", s)
	case targetDB:
		r.collection("", "")
	case targetNS:
		if s, ok := v.StringValueOK(); ok {
			r.namespace(s)
		}
	}
}

// path looks up a nested field one document at a time (bsoncore's
// multi-key Lookup panics on a malformed nested document).
func path(d bsoncore.Document, keys ...string) bsoncore.Value {
	var v bsoncore.Value
	for i, k := range keys {
		v = d.Lookup(k)
		if i == len(keys)-1 {
			break
		}
		var ok bool
		if d, ok = v.DocumentOK(); !ok {
			return bsoncore.Value{}
		}
	}
	return v
}

// flag reads v, field name of kind k, as mongod reads it (values.go). A
// value mongod refuses is kept as the reading's error (the command is then
// refused as the server refuses it) and reads as true, never as the
// weaker reading.
func (r *reading) flag(name string, v bsoncore.Value, k flagKind) bool {
	b, err := flag(name, v, k)
	if err != nil {
		r.fail(err)
		return true
	}
	return b
}

// fail keeps err as the reading's error unless one was kept already.
func (r *reading) fail(err error) {
	if r.err == nil && err != nil {
		r.err = err
	}
}

func (r *reading) finish() {
	if len(r.actions.items) == 0 {
		r.actions.add(ActionUnknown)
	}
	r.c.Analysis.Actions = r.actions.items
	r.c.Analysis.Targets = r.targets.items
	if len(r.targets.items) == 0 {
		r.c.Analysis.Targets = nil // as when nothing was added
	}
	r.c.Analysis.Functions = r.functions.items
	r.c.Analysis.Effects = r.effects()
}

package command

import (
	"slices"
	"strings"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// reading collects a command's actions, targets and functions in the
// order found, without repeats.
type reading struct {
	c                           *Command
	name                        string // lower case
	actions, targets, functions []string
	explained                   bool // inside an explain: reads, never writes
}

func newReading(c *Command) *reading {
	return &reading{c: c, name: strings.ToLower(c.Name)}
}

// add appends v to list unless it is empty or there already (the lists
// are short: a linear search beats a map).
func add(list *[]string, v string) {
	if v != "" && !slices.Contains(*list, v) {
		*list = append(*list, v)
	}
}

func (r *reading) action(a string)   { add(&r.actions, a) }
func (r *reading) function(f string) { add(&r.functions, f) }

// collection adds db.coll (the command's database when db is empty).
func (r *reading) collection(db, coll string) {
	if db == "" {
		db = r.c.Database
	}
	if coll == "" {
		add(&r.targets, db)
		return
	}
	if db == "" {
		add(&r.targets, coll)
		return
	}
	add(&r.targets, db+"."+coll)
}

// namespace adds a full "db.collection" as sent.
func (r *reading) namespace(ns string) { add(&r.targets, ns) }

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

// special reads what only some commands carry.
func (r *reading) special(name string, v bsoncore.Value) {
	c := r.c
	switch name {
	case "findandmodify":
		if rm, err := c.Body.LookupErr("remove"); err == nil && truthy(rm) {
			r.action("DELETE")
		} else {
			r.action("UPDATE")
		}
		if truthy(c.Body.Lookup("upsert")) {
			r.action("INSERT")
		}
	case "update":
		// An upsert inserts when nothing matches: INSERT as well.
		updates, _, _ := r.field("updates")
		for _, u := range updates {
			if truthy(u.Lookup("upsert")) {
				r.action("INSERT")
				break
			}
		}
	case "bulkwrite":
		ns, _, _ := r.field("nsInfo")
		for _, d := range ns {
			if s, ok := d.Lookup("ns").StringValueOK(); ok {
				r.namespace(s)
			}
		}
		ops, _, _ := r.field("ops")
		for _, op := range ops {
			if e, err := op.IndexErr(0); err == nil {
				switch e.Key() {
				case "insert":
					r.action("INSERT")
				case "update":
					r.action("UPDATE")
					if truthy(op.Lookup("upsert")) {
						r.action("INSERT")
					}
				case "delete":
					r.action("DELETE")
				}
			}
		}
	case "renamecollection":
		if s, ok := c.Body.Lookup("to").StringValueOK(); ok {
			r.namespace(s)
		}
	case "clonecollectionascapped":
		if s, ok := c.Body.Lookup("toCollection").StringValueOK(); ok {
			r.collection("", s)
		}
	case "create":
		if s, ok := c.Body.Lookup("viewOn").StringValueOK(); ok {
			r.collection("", s)
		}
	case "mapreduce":
		r.mapReduceOut(c.Body.Lookup("out"))
	case "explain":
		if inner, ok := v.DocumentOK(); ok && !r.explained {
			r.explain(inner)
		}
	case "getmore":
		c.Continuation = true
		if id, ok := integer(v); ok {
			c.CursorIDs = []int64{id}
		}
		if s, ok := c.Body.Lookup("collection").StringValueOK(); ok {
			r.collection("", s)
		}
	case "killcursors":
		c.Continuation = true
		if arr, ok := c.Body.Lookup("cursors").ArrayOK(); ok {
			vals, _ := arr.Values()
			for _, x := range vals {
				if id, ok := integer(x); ok {
					c.CursorIDs = append(c.CursorIDs, id)
				}
			}
		}
	case "hello", "ismaster":
		c.Hello = true
		if s, ok := path(c.Body, "client", "application", "name").StringValueOK(); ok {
			c.AppName = s
		}
		if arr, ok := c.Body.Lookup("compression").ArrayOK(); ok {
			vals, _ := arr.Values()
			for _, x := range vals {
				if s, ok := x.StringValueOK(); ok {
					c.Compression = append(c.Compression, s)
				}
			}
		}
		if d, ok := c.Body.Lookup("speculativeAuthenticate").DocumentOK(); ok {
			c.Auth = parseAuth(d, c.Database)
			if c.Auth != nil {
				c.Auth.Speculative = true
			}
		}
	case "saslstart", "saslcontinue", "authenticate", "logout", "getnonce":
		c.Auth = parseAuth(c.Body, c.Database)
	}
}

// mapReduceOut reads mapReduce's out: {inline: 1} returns results and
// writes nothing; a name or {replace|merge|reduce: coll, db} writes.
func (r *reading) mapReduceOut(out bsoncore.Value) {
	if s, ok := out.StringValueOK(); ok {
		r.collection("", s)
		return
	}
	d, ok := out.DocumentOK()
	if !ok {
		return
	}
	if _, err := d.LookupErr("inline"); err == nil {
		r.c.Write = false
		return
	}
	db, _ := d.Lookup("db").StringValueOK()
	for _, k := range []string{"replace", "merge", "reduce"} {
		if s, ok := d.Lookup(k).StringValueOK(); ok {
			r.collection(db, s)
		}
	}
}

// explain adds what the explained command reads: its targets, functions
// and SERVER_JS (explain runs the query plan, $where included), never its
// write actions (explain does not write).
func (r *reading) explain(inner bsoncore.Document) {
	first, err := inner.IndexErr(0)
	if err != nil {
		return
	}
	ic := &Command{Name: first.Key(), Database: r.c.Database, Body: inner, Ordered: true}
	ir := newReading(ic)
	ir.explained = true
	s, _ := lookup(ic.Name)
	ir.target(s.target, first.Value())
	ir.special(ir.name, first.Value())
	ir.scan()
	for _, t := range ir.targets {
		r.namespace(t)
	}
	for _, f := range ir.functions {
		r.function(f)
	}
	for _, a := range ir.actions {
		if a == ActionServerJS {
			r.action(a)
		}
	}
}

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
		if r.name == "aggregate" && !r.explained {
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

// truthy reads a BSON value as MongoDB reads a flag: true, or a non-zero
// number.
func truthy(v bsoncore.Value) bool {
	if b, ok := v.BooleanOK(); ok {
		return b
	}
	if n, ok := integer(v); ok {
		return n != 0
	}
	if f, ok := v.DoubleOK(); ok {
		return f != 0
	}
	return false
}

func (r *reading) finish() {
	if len(r.actions) == 0 {
		r.actions = []string{ActionUnknown}
	}
	r.c.Analysis.Actions = r.actions
	r.c.Analysis.Targets = r.targets
	r.c.Analysis.Functions = r.functions
}

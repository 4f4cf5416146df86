package command

import (
	"strings"

	"github.com/hoophq/sidecar/domain"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// special reads what only some commands carry.
func (r *reading) special(name string, v bsoncore.Value) {
	c := r.c
	switch name {
	case "findandmodify":
		// remove, upsert and new are IDL safeBool: a boolean or any number
		// (remove: NumberDecimal("1") deletes).
		if r.flag("remove", c.Body.Lookup("remove"), idlSafeBool) {
			r.action("DELETE")
		} else {
			r.action("UPDATE")
		}
		if r.flag("upsert", c.Body.Lookup("upsert"), idlSafeBool) {
			r.action("INSERT")
		}
		r.flag("new", c.Body.Lookup("new"), idlSafeBool)
	case "update":
		// An upsert inserts when nothing matches: INSERT as well. upsert
		// and multi are IDL bool: a boolean only.
		updates, _, _ := r.field("updates")
		for _, u := range updates {
			if r.flag("updates.upsert", u.Lookup("upsert"), idlBool) {
				r.action("INSERT")
			}
			r.flag("updates.multi", u.Lookup("multi"), idlBool)
		}
	case "delete":
		deletes, _, _ := r.field("deletes")
		for _, d := range deletes {
			r.fail(deleteLimit(d.Lookup("limit")))
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
					if r.flag("ops.upsert", op.Lookup("upsert"), idlBool) {
						r.action("INSERT")
					}
					r.flag("ops.multi", op.Lookup("multi"), idlBool)
				case "delete":
					r.action("DELETE")
					r.flag("ops.multi", op.Lookup("multi"), idlBool)
				}
			}
		}
	case "applyops", "dotxn":
		// doTxn (4.0 test builds): applyOps in a transaction. The entries
		// are the command's own value, whatever the case of its name.
		entries, _, _ := r.field(c.Name)
		r.applyOps(entries)
	case "emptycapped", "captrunc":
		// Test-build commands (enableTestCommands) that delete from a
		// capped collection; UNKNOWN as well, as the table lacks them.
		r.action("DELETE")
	case "godinsert":
		r.action("INSERT")
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

// maxApplyOpsDepth is how deep applyOps inside applyOps is read; a
// deeper one is UNKNOWN.
const maxApplyOpsDepth = 4

// applyOps reads the oplog entries of an applyOps command: each names its
// namespace (ns) and does an insert (op "i"), update ("u"), delete ("d"),
// nothing ("n") or runs a command ("c": its document o read by read, as the
// command sent is, nested applyOps included up to maxApplyOpsDepth), so a
// rule on DELETE or DROP holds them however they arrive. The inner
// command's actions, targets and functions join the command's; its effects,
// the ones its fields give included (dropTarget, expireAfterSeconds…),
// are kept in r.inner for effects(). An entry whose op is none of these,
// or applyOps nested deeper, is UNKNOWN.
func (r *reading) applyOps(entries []bsoncore.Document) {
	if r.depth > maxApplyOpsDepth {
		r.action(ActionUnknown)
		return
	}
	for _, entry := range entries {
		op, _ := entry.Lookup("op").StringValueOK()
		ns, _ := entry.Lookup("ns").StringValueOK()
		switch op {
		case "i":
			r.action("INSERT")
			r.namespace(ns)
		case "u":
			r.action("UPDATE")
			r.namespace(ns)
		case "d":
			r.action("DELETE")
			r.namespace(ns)
		case "n":
		case "c":
			inner, ok := entry.Lookup("o").DocumentOK()
			if !ok {
				continue
			}
			first, err := inner.IndexErr(0)
			if err != nil {
				continue
			}
			db, _, _ := strings.Cut(ns, ".")
			ir := newReading(&Command{Name: first.Key(), Database: db, Body: inner, Ordered: true})
			ir.depth = r.depth + 1
			ir.read(first)
			r.fail(ir.err)
			for _, a := range ir.actions.items {
				r.action(a)
			}
			for _, t := range ir.targets.items {
				r.namespace(t)
			}
			for _, f := range ir.functions.items {
				r.function(f)
			}
			r.inner = domain.AddEffects(r.inner, ir.effects()...)
		default:
			r.action(ActionUnknown)
			r.namespace(ns)
		}
	}
}

// mapReduceModes are the output modes of mapReduce's out document that
// write a collection; "normal" is the old servers' name for replace.
var mapReduceModes = []string{"normal", "replace", "merge", "reduce"}

// inlineOnly reports whether mapReduce's out document d writes nothing: it
// has inline and no writing mode. Servers up to 4.2 look for the writing
// modes before inline, so {inline: 1, replace: "c"} replaces c there.
func inlineOnly(d bsoncore.Document) bool {
	if _, err := d.LookupErr("inline"); err != nil {
		return false
	}
	for _, k := range mapReduceModes {
		if _, err := d.LookupErr(k); err == nil {
			return false
		}
	}
	return true
}

// mapReduceOut reads mapReduce's out: {inline: 1} returns results and
// writes nothing; a name or {normal|replace|merge|reduce: coll, db} writes.
func (r *reading) mapReduceOut(out bsoncore.Value) {
	if s, ok := out.StringValueOK(); ok {
		r.collection("", s)
		return
	}
	d, ok := out.DocumentOK()
	if !ok {
		return
	}
	if inlineOnly(d) {
		r.c.Write = false
		return
	}
	db, _ := d.Lookup("db").StringValueOK()
	for _, k := range mapReduceModes {
		if s, ok := d.Lookup(k).StringValueOK(); ok {
			r.collection(db, s)
		}
	}
}

// explain adds what the explained command reads: its targets, functions
// and SERVER_JS (explain runs the query plan, $where included), and
// AGGREGATE_WRITE for an aggregate with $out or $merge (servers 3.6 and
// 4.0 write at executionStats verbosity, SERVER-38063), never its other
// write actions (explain of update, delete, findAndModify does not write).
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
	r.fail(ir.err)
	for _, t := range ir.targets.items {
		r.namespace(t)
	}
	for _, f := range ir.functions.items {
		r.function(f)
	}
	for _, a := range ir.actions.items {
		switch a {
		case ActionServerJS:
			r.action(a)
		case ActionAggregateWrite:
			r.action(a)
			r.c.Write = true
		}
	}
}

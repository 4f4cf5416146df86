package command

import (
	"fmt"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// analyse reads one command document with its document sequences. db is
// the database when the document has no $db (OP_QUERY).
func analyse(body bsoncore.Document, seqs []wire.Sequence, db string) (*Command, error) {
	first, err := body.IndexErr(0)
	if err != nil {
		return nil, &Error{Reason: "empty command document"}
	}
	c := &Command{Name: first.Key(), Database: db, Body: body, Sequences: seqs, Ordered: true}
	if err := checkSequences(body, seqs); err != nil {
		return nil, err
	}
	if err := c.readOptions(body); err != nil {
		return nil, err
	}
	r := newReading(c)
	r.read(first)
	if r.err != nil {
		return nil, r.err
	}
	r.finish()
	c.canonDB = db // CanonicalBytes builds the canonical bytes when they are needed
	return c, nil
}

// read reads the command r was made for, whose first element (its name
// and value) is first, as mongod dispatches it: the command table's
// actions for the name (UNKNOWN, a write, and a collection target when the
// table lacks it), whether it writes, its target, what only it carries
// (special.go) and the server-side JavaScript and stages anywhere in it
// (scan.go). The command sent and each command inside applyOps are read
// by it, so an inner command is read as fully as a top-level one.
func (r *reading) read(first bsoncore.Element) {
	s, known := lookup(r.c.Name)
	if !known {
		r.action(ActionUnknown)
		// An unknown command naming a collection still has a target, so a
		// rule on "db.coll" holds it.
		s.target = targetColl
	}
	for _, a := range s.actions {
		r.action(a)
	}
	r.c.Write = s.write || !known
	r.target(s.target, first.Value())
	r.special(r.name, first.Value())
	r.scan()
}

// checkSequences refuses what the server refuses: a top-level field sent
// twice (which copy would the server take? current servers refuse the
// command: the analysis refuses it too rather than guess), a sequence
// identifier used twice, or one that is also a field of the body. Linear
// in the number of fields and sequences (a 48 MB body can hold millions).
func checkSequences(body bsoncore.Document, seqs []wire.Sequence) error {
	var fields keySet
	var dup []byte
	each(body, func(key []byte, _ bsoncore.Element) bool {
		if !fields.add(key) {
			dup = key
			return false
		}
		return true
	})
	if dup != nil {
		return &Error{Reason: fmt.Sprintf("field %q appears twice in the command", dup)}
	}
	var ids keySet
	for _, s := range seqs {
		if fields.has(s.Identifier) {
			return &Error{Reason: fmt.Sprintf("document sequence %q repeats a field of the command", s.Identifier)}
		}
		if !ids.add([]byte(s.Identifier)) {
			return &Error{Reason: fmt.Sprintf("document sequence %q appears twice", s.Identifier)}
		}
	}
	return nil
}

// readOptions reads the generic fields of any command: $db, the session
// and transaction fields, maxTimeMS, ordered. autocommit,
// startTransaction and ordered are IDL bool, read as mongod reads them
// (values.go): a value of another type is refused (*Error).
func (c *Command) readOptions(body bsoncore.Document) error {
	var err error
	each(body, func(key []byte, e bsoncore.Element) bool {
		v := valueOf(key, e)
		switch string(key) {
		case "$db":
			if s, ok := v.StringValueOK(); ok {
				c.Database = s
			}
		case "lsid":
			if d, ok := v.DocumentOK(); ok {
				c.LSID = d
			}
		case "txnNumber":
			if n, ok := integer(v); ok {
				c.TxnNumber, c.HasTxnNumber = n, true
			}
		case "autocommit", "startTransaction", "ordered":
			var b bool
			if b, err = flag(string(key), v, idlBool); err != nil {
				return false
			}
			switch {
			case v.Type != bsoncore.TypeBoolean: // null, undefined: absent
			case string(key) == "autocommit":
				c.InTransaction = !b
			case string(key) == "startTransaction":
				c.StartTransaction = b
			default:
				c.Ordered = b
			}
		case "maxTimeMS":
			if n, ok := integer(v); ok && n > 0 {
				c.MaxTimeMS = n
			}
		}
		return true
	})
	return err
}

// integer reads any BSON number holding an integral value.
func integer(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32:
		n, ok := v.Int32OK()
		return int64(n), ok
	case bsoncore.TypeInt64:
		return v.Int64OK()
	case bsoncore.TypeDouble:
		f, ok := v.DoubleOK()
		if !ok || f != float64(int64(f)) {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}

// field returns the named field of the command: from the body, else the
// document sequence of that identifier as an array of its documents.
func (r *reading) field(name string) ([]bsoncore.Document, bsoncore.Value, bool) {
	for _, s := range r.c.Sequences {
		if s.Identifier == name {
			return s.Documents, bsoncore.Value{}, true
		}
	}
	v, err := r.c.Body.LookupErr(name)
	if err != nil {
		return nil, v, false
	}
	if arr, ok := v.ArrayOK(); ok {
		vals, _ := arr.Values()
		docs := make([]bsoncore.Document, 0, len(vals))
		for _, x := range vals {
			if d, ok := x.DocumentOK(); ok {
				docs = append(docs, d)
			}
		}
		return docs, v, true
	}
	return nil, v, true
}

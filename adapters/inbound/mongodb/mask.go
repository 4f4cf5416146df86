package mongodb

import (
	"errors"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/domain/masking"
)

// errBadBSON is a document the masker cannot walk. Replies are validated
// whole (wire.DecodeMsg) before they are masked, so it means a bug.
var errBadBSON = errors.New("a document that is not valid BSON")

// masker rewrites the result documents of one reply under a plan
// (docs/mongodb-listener.md, "Masking"). A field's path is its keys from
// the document's root, array indexes left out: {a: [{b: "x"}]} has "x" at
// [a, b]. What each BSON type becomes:
//
//   - string, JavaScript code, symbol, a regex's pattern: masked text of
//     the same type (masking.Field.Text);
//   - double, int32, int64, decimal128: null when a column rule masks the
//     field or an entity is found in the number's decimal text (a card
//     number kept as a number); binary (its bytes), JavaScript with scope
//     and DBPointer (their raw bytes): null when an entity is in them;
//   - an embedded document under a column rule: null; else each field;
//   - an array: each element, at the array's own path;
//   - ObjectId, dates, timestamps, booleans, null, min/max key: null under
//     a column rule, else unread (they hold no text).
//
// Keys are never masked.
type masker struct {
	plan     *masking.Plan
	distinct []string // the path of a distinct's key, nil for another command
	results  bool     // a mapReduce's reply: its inline results are documents
	path     []string // the walk's current path, reused
	scratch  []byte   // masked text, reused
}

// document appends doc, masked, to dst: the new dst and whether any value
// changed. doc must be valid BSON.
func (m *masker) document(dst []byte, doc bsoncore.Document) ([]byte, bool, error) {
	return m.container(dst, doc, true)
}

// container appends a document (keys extend the path) or an array (they
// do not) to dst.
func (m *masker) container(dst []byte, doc []byte, isDoc bool) ([]byte, bool, error) {
	return walk(dst, doc, func(dst []byte, e bsoncore.Element) ([]byte, bool, error) {
		key := e.Key()
		if !isDoc {
			return m.element(dst, e, key)
		}
		m.path = append(m.path, key)
		dst, c, err := m.element(dst, e, key)
		m.path = m.path[:len(m.path)-1]
		return dst, c, err
	})
}

// walk appends doc (a document or an array) to dst, each element as each
// appends it (masked or as it is): the new dst and whether each changed
// any. It is the one loop over a BSON document's elements that container
// (the masking of values) and fields (the reply's structure) share.
func walk(dst []byte, doc []byte, each func(dst []byte, e bsoncore.Element) ([]byte, bool, error)) ([]byte, bool, error) {
	if len(doc) < 5 {
		return dst, false, errBadBSON
	}
	at, dst := bsoncore.ReserveLength(dst)
	changed := false
	rest := doc[4 : len(doc)-1]
	for len(rest) > 0 {
		e, r, ok := bsoncore.ReadElement(rest)
		if !ok {
			return dst, false, errBadBSON
		}
		rest = r
		var c bool
		var err error
		if dst, c, err = each(dst, e); err != nil {
			return dst, false, err
		}
		changed = changed || c
	}
	dst = append(dst, 0)
	return bsoncore.UpdateLength(dst, at, int32(len(dst[at:]))), changed, nil
}

// element appends element e (named key, at m.path) to dst, masked.
func (m *masker) element(dst []byte, e bsoncore.Element, key string) ([]byte, bool, error) {
	v := e.Value()
	f := m.plan.Field(m.path...)
	switch {
	case v.Type == bsoncore.TypeEmbeddedDocument && f.Whole():
		f.NonText(nil) // counted
		return bsoncore.AppendNullElement(dst, key), true, nil
	case v.Type == bsoncore.TypeArray || v.Type == bsoncore.TypeEmbeddedDocument:
		// A rule may name a field inside, whatever applies here.
		at := len(dst)
		dst = bsoncore.AppendHeader(dst, v.Type, key)
		out, changed, err := m.container(dst, v.Data, v.Type == bsoncore.TypeEmbeddedDocument)
		if err != nil || !changed {
			return append(dst[:at], e...), false, err
		}
		return out, true, nil
	case f == nil:
		return append(dst, e...), false, nil
	}
	switch v.Type {
	case bsoncore.TypeString, bsoncore.TypeJavaScript, bsoncore.TypeSymbol:
		text := v.Data[4 : len(v.Data)-1]
		out, changed := f.Text(m.scratch, text)
		if !changed {
			return append(dst, e...), false, nil
		}
		m.scratch = out[:0]
		dst = bsoncore.AppendHeader(dst, v.Type, key)
		return bsoncore.AppendString(dst, string(out)), true, nil
	case bsoncore.TypeRegex:
		pattern, options, _ := v.RegexOK()
		out, changed := f.Text(m.scratch, []byte(pattern))
		if !changed {
			return append(dst, e...), false, nil
		}
		m.scratch = out[:0]
		return bsoncore.AppendRegexElement(dst, key, string(out), options), true, nil
	}
	if f.NonText(m.numberText(v)) {
		return bsoncore.AppendNullElement(dst, key), true, nil
	}
	return append(dst, e...), false, nil
}

// numberText is what NonText reads of a value that is not text: a
// number's decimal text, the raw bytes of a binary, a JavaScript with
// scope or a DBPointer, and nil for the types that hold no text (a column
// rule still masks them).
func (m *masker) numberText(v bsoncore.Value) []byte {
	b := m.scratch[:0]
	switch v.Type {
	case bsoncore.TypeDouble:
		b = strconv.AppendFloat(b, v.Double(), 'f', -1, 64)
	case bsoncore.TypeInt32:
		b = strconv.AppendInt(b, int64(v.Int32()), 10)
	case bsoncore.TypeInt64:
		b = strconv.AppendInt(b, v.Int64(), 10)
	case bsoncore.TypeDecimal128:
		h, l := v.Decimal128()
		b = append(b, bson.NewDecimal128(h, l).String()...)
	case bsoncore.TypeBinary:
		_, data, _ := v.BinaryOK()
		return data
	case bsoncore.TypeCodeWithScope, bsoncore.TypeDBPointer:
		return v.Data
	default:
		return nil
	}
	m.scratch = b[:0]
	return b
}

package command

import (
	"strconv"
	"unicode/utf8"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// DefaultDisplayLimit is the longest rendering Display returns by default,
// in bytes: enough for a filter or a pipeline, short of a 10,000-document
// insert.
const DefaultDisplayLimit = 4096

// Display renders the canonical command for the approver: relaxed
// Extended JSON (MongoDB Extended JSON v2, what mongosh users read: 1, not
// {"$numberLong": "1"}) of Canonical, cut at limit bytes (zero or less:
// DefaultDisplayLimit) on a UTF-8 boundary and then marked
// "… (truncated; N bytes of BSON)".
//
// Its cost follows limit, not the command: a 48 MB insert is pruned to a
// little more than limit bytes of BSON before it is rendered. A document the bson
// package cannot render (it always can after FromMsg) renders as
// "<N bytes of BSON>".
func (c *Command) Display(limit int) string {
	if limit <= 0 {
		limit = DefaultDisplayLimit
	}
	// Relaxed JSON is seldom much shorter than its BSON: a quarter more
	// BSON than limit is enough to fill limit almost always.
	doc, pruned := []byte(c.CanonicalBytes()), false
	if budget := limit + limit/4; len(doc) > budget {
		doc, pruned = prune(doc, budget, 1)
	}
	js, ok := appendRelaxed(make([]byte, 0, min(2*len(doc), 2*limit)+16), doc, false, 1)
	if !ok {
		var err error
		if js, err = bson.MarshalExtJSON(bson.Raw(doc), false, false); err != nil {
			return "<" + strconv.Itoa(len(c.CanonicalBytes())) + " bytes of BSON>"
		}
	}
	if len(js) <= limit && !pruned {
		return string(js)
	}
	cut := min(limit, len(js))
	for cut > 0 && cut < len(js) && !utf8.RuneStart(js[cut]) {
		cut--
	}
	return string(js[:cut]) + "… (truncated; " + strconv.Itoa(len(c.CanonicalBytes())) + " bytes of BSON)"
}

// prune returns a valid BSON document holding the first elements of doc
// that fit in budget bytes; the element that crosses the budget is pruned
// itself when it is a document or an array, cut when it is a string, and
// left out otherwise. Past wire.MaxDepth nothing is kept.
func prune(doc []byte, budget, depth int) ([]byte, bool) {
	idx, out := bsoncore.ReserveLength(make([]byte, 0, min(len(doc), budget)+16))
	cut := false
	if depth <= wire.MaxDepth {
		each(doc, func(key []byte, e bsoncore.Element) bool {
			if len(out)+len(e) <= budget {
				out = append(out, e...)
				return true
			}
			cut = true
			left := budget - len(out) - len(key) - 2
			v := valueOf(key, e)
			switch v.Type {
			case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
				sub, _ := prune(v.Data, max(left, 5), depth+1)
				out = append(out, byte(v.Type))
				out = append(out, key...)
				out = append(out, 0)
				out = append(out, sub...)
			case bsoncore.TypeString:
				if s, ok := v.StringValueOK(); ok {
					n := max(min(left-5, len(s)), 0)
					for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
						n--
					}
					out = bsoncore.AppendStringElement(out, string(key), s[:n])
				}
			}
			return false
		})
	} else {
		cut = true
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out, cut
}

package command

import (
	"strconv"
	"unicode/utf8"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Display renders the canonical command for the approver: relaxed
// Extended JSON (MongoDB Extended JSON v2, what mongosh users read: 1, not
// {"$numberLong": "1"}) of Canonical. With limit zero or less it renders the
// whole command.
//
// With a positive limit (the gate's app.MaxShownStatement) its cost follows
// limit, not the command: a rendering longer than limit bytes is returned
// as its first limit bytes and a few more (ending on a UTF-8 boundary), a
// 48 MB insert pruned to a little more than limit bytes of BSON before it
// is rendered. It does not mark the cut: the gate cuts and marks every
// protocol's rendering the same way (app.Shown). A document the bson package
// cannot render (it always can after FromMsg) renders as "<N bytes of BSON>".
func (c *Command) Display(limit int) string {
	whole := []byte(c.CanonicalBytes())
	doc, pruned := whole, false
	// Relaxed JSON is seldom much shorter than its BSON: a quarter more
	// BSON than limit fills limit almost always; where it does not (small
	// numbers render shorter than their BSON), prune again with more.
	for budget := limit + limit/4; ; budget *= 2 {
		if limit > 0 && len(whole) > budget {
			doc, pruned = prune(whole, budget, 1)
		} else {
			doc, pruned = whole, false
		}
		js, ok := appendRelaxed(make([]byte, 0, min(2*len(doc), 2*max(limit, 1))+16), doc, false, 1)
		if !ok {
			var err error
			if js, err = bson.MarshalExtJSON(bson.Raw(doc), false, false); err != nil {
				return "<" + strconv.Itoa(len(whole)) + " bytes of BSON>"
			}
		}
		if limit <= 0 || (len(js) <= limit && !pruned) {
			return string(js)
		}
		if len(js) > limit {
			cut := limit + 1
			for cut < len(js) && !utf8.RuneStart(js[cut]) {
				cut++
			}
			return string(js[:cut])
		}
	}
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

package command

import (
	"strconv"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// DefaultDisplayLimit is the longest rendering Display returns by default,
// in bytes: enough for a filter or a pipeline, short of a 10,000-document
// insert.
const DefaultDisplayLimit = 4096

// Display renders the canonical command for the approver: relaxed
// Extended JSON (MongoDB Extended JSON v2, what mongosh users read: 1, not
// {"$numberLong": "1"}) of Canonical, cut at limit bytes (zero or less:
// DefaultDisplayLimit) on a UTF-8 boundary with "… (N bytes)" saying how
// long the whole was. A document the bson package cannot render (it
// always can after FromMsg) renders as "<N bytes of BSON>".
func (c *Command) Display(limit int) string {
	if limit <= 0 {
		limit = DefaultDisplayLimit
	}
	js, err := bson.MarshalExtJSON(bson.Raw(c.Canonical), false, false)
	if err != nil {
		return "<" + strconv.Itoa(len(c.Canonical)) + " bytes of BSON>"
	}
	if len(js) <= limit {
		return string(js)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(js[cut]) {
		cut--
	}
	return string(js[:cut]) + "… (" + strconv.Itoa(len(js)) + " bytes)"
}

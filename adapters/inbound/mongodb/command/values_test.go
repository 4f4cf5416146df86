package command

import (
	"errors"
	"strings"
	"testing"
)

// bsonValue is one value of each BSON type a client can send, as canonical
// Extended JSON, with how mongod reads it in a flag field: as an IDL
// safeBool (num: any number or boolean, true when not zero) and as an IDL
// bool (a boolean only). null and undefined read as absent (false).
type bsonValue struct {
	js         string
	safeBool   string // "true", "false" or "refused"
	strictBool string
	limit      string // a delete entry's limit: "ok" or "refused"
}

var everyType = []bsonValue{
	{`true`, "true", "true", "ok"}, // limit: numberDouble(true) is 0, every match
	{`false`, "false", "false", "ok"},
	{`{"$numberInt": "1"}`, "true", "refused", "ok"},
	{`{"$numberInt": "0"}`, "false", "refused", "ok"},
	{`{"$numberInt": "-7"}`, "true", "refused", "refused"},
	{`{"$numberLong": "1"}`, "true", "refused", "ok"},
	{`{"$numberLong": "0"}`, "false", "refused", "ok"},
	{`{"$numberLong": "4294967296"}`, "true", "refused", "refused"},
	{`{"$numberDouble": "1.0"}`, "true", "refused", "ok"},
	{`{"$numberDouble": "0.5"}`, "true", "refused", "refused"},
	{`{"$numberDouble": "0.0"}`, "false", "refused", "ok"},
	{`{"$numberDouble": "-0.0"}`, "false", "refused", "ok"},
	{`{"$numberDouble": "NaN"}`, "true", "refused", "refused"},
	{`{"$numberDouble": "Infinity"}`, "true", "refused", "refused"},
	{`{"$numberDecimal": "1"}`, "true", "refused", "ok"},
	{`{"$numberDecimal": "1.000"}`, "true", "refused", "ok"},
	{`{"$numberDecimal": "0.1"}`, "true", "refused", "refused"},
	{`{"$numberDecimal": "0"}`, "false", "refused", "ok"},
	{`{"$numberDecimal": "-0"}`, "false", "refused", "ok"},
	{`{"$numberDecimal": "0E+300"}`, "false", "refused", "ok"},
	{`{"$numberDecimal": "0.0000"}`, "false", "refused", "ok"},
	{`{"$numberDecimal": "NaN"}`, "true", "refused", "refused"},
	{`{"$numberDecimal": "-Infinity"}`, "true", "refused", "refused"},
	{`null`, "false", "false", "ok"},
	{`{"$undefined": true}`, "false", "false", "ok"},
	{`"yes"`, "refused", "refused", "ok"},
	{`""`, "refused", "refused", "ok"},
	{`{}`, "refused", "refused", "ok"},
	{`{"a": 1}`, "refused", "refused", "ok"},
	{`[]`, "refused", "refused", "ok"},
	{`[1]`, "refused", "refused", "ok"},
	{`{"$binary": {"base64": "AQ==", "subType": "00"}}`, "refused", "refused", "ok"},
	{`{"$oid": "6b0e4e9adb6595edbdb7aa59"}`, "refused", "refused", "ok"},
	{`{"$date": {"$numberLong": "1"}}`, "refused", "refused", "ok"},
	{`{"$regularExpression": {"pattern": "a", "options": ""}}`, "refused", "refused", "ok"},
	{`{"$dbPointer": {"$ref": "c", "$id": {"$oid": "6b0e4e9adb6595edbdb7aa59"}}}`, "refused", "refused", "ok"},
	{`{"$code": "1"}`, "refused", "refused", "ok"},
	{`{"$symbol": "1"}`, "refused", "refused", "ok"},
	{`{"$code": "1", "$scope": {}}`, "refused", "refused", "ok"},
	{`{"$timestamp": {"t": 1, "i": 1}}`, "refused", "refused", "ok"},
	{`{"$minKey": 1}`, "refused", "refused", "ok"},
	{`{"$maxKey": 1}`, "refused", "refused", "ok"},
}

// outcome analyses body and says what a flag read as: "true" when the
// analysis has want (an action, or a Command field), "false" when not,
// "refused" when the analysis refused the command (as mongod does).
func outcome(t *testing.T, body string, has func(*Command) bool) string {
	t.Helper()
	c, err := FromMsg(msg(t, body))
	if err != nil {
		var ce *Error
		if !errors.As(err, &ce) {
			t.Fatalf("%s: %v is not an *Error", body, err)
		}
		return "refused"
	}
	if has(c) {
		return "true"
	}
	return "false"
}

func hasAction(a string) func(*Command) bool {
	return func(c *Command) bool { return contains(","+join(c.Analysis.Actions)+",", ","+a+",") }
}

// Each flag the analysis reads, with every BSON type: the analysis reads
// it as mongod does (issue 32, point 3), or refuses the command where
// mongod refuses it. A flag never reads weaker than mongod reads it:
// findAndModify with remove: NumberDecimal("1") is a DELETE.
func TestFlagsReadAsMongodReadsThem(t *testing.T) {
	type field struct {
		name   string
		body   string // %v is the value
		kind   string // "safeBool", "bool" or "limit"
		has    func(*Command) bool
		always string // an action present whatever the value (the flag only refuses)
	}
	inTxn := func(c *Command) bool { return c.InTransaction }
	fields := []field{
		{"findAndModify remove", `{"findAndModify": "t", "query": {"a": 1}, "remove": %v, "$db": "test"}`, "safeBool", hasAction("DELETE"), ""},
		{"findAndModify upsert", `{"findAndModify": "t", "query": {"a": 1}, "update": {"$set": {"b": 1}}, "upsert": %v, "$db": "test"}`, "safeBool", hasAction("INSERT"), "UPDATE"},
		{"findAndModify new", `{"findAndModify": "t", "query": {"a": 1}, "update": {"$set": {"b": 1}}, "new": %v, "$db": "test"}`, "safeBool", nil, "UPDATE"},
		{"explain findAndModify remove", `{"explain": {"findAndModify": "t", "remove": %v}, "$db": "test"}`, "safeBool", nil, ""},
		{"update upsert", `{"update": "t", "updates": [{"q": {}, "u": {"$set": {"b": 1}}, "upsert": %v}], "$db": "test"}`, "bool", hasAction("INSERT"), "UPDATE"},
		{"update multi", `{"update": "t", "updates": [{"q": {}, "u": {"$set": {"b": 1}}, "multi": %v}], "$db": "test"}`, "bool", nil, "UPDATE"},
		{"delete limit", `{"delete": "t", "deletes": [{"q": {}, "limit": %v}], "$db": "test"}`, "limit", nil, "DELETE"},
		{"bulkWrite update upsert", `{"bulkWrite": 1, "ops": [{"update": 0, "filter": {}, "updateMods": {"$set": {"b": 1}}, "upsert": %v}], "nsInfo": [{"ns": "test.t"}], "$db": "admin"}`, "bool", hasAction("INSERT"), "UPDATE"},
		{"bulkWrite update multi", `{"bulkWrite": 1, "ops": [{"update": 0, "filter": {}, "updateMods": {"$set": {"b": 1}}, "multi": %v}], "nsInfo": [{"ns": "test.t"}], "$db": "admin"}`, "bool", nil, "UPDATE"},
		{"bulkWrite delete multi", `{"bulkWrite": 1, "ops": [{"delete": 0, "filter": {}, "multi": %v}], "nsInfo": [{"ns": "test.t"}], "$db": "admin"}`, "bool", nil, "DELETE"},
		{"applyOps command remove", `{"applyOps": [{"op": "c", "ns": "test.$cmd", "o": {"findAndModify": "t", "remove": %v}}], "$db": "admin"}`, "safeBool", hasAction("DELETE"), ""},
		{"ordered", `{"insert": "t", "documents": [{"a": 1}], "ordered": %v, "$db": "test"}`, "bool", func(c *Command) bool { return c.Ordered }, "INSERT"},
		{"autocommit", `{"delete": "t", "deletes": [{"q": {}, "limit": 0}], "lsid": {"id": 1}, "txnNumber": {"$numberLong": "1"}, "autocommit": %v, "$db": "test"}`, "bool", inTxn, "DELETE"},
		{"startTransaction", `{"delete": "t", "deletes": [{"q": {}, "limit": 0}], "startTransaction": %v, "autocommit": false, "$db": "test"}`, "bool", func(c *Command) bool { return c.StartTransaction }, "DELETE"},
	}
	for _, f := range fields {
		t.Run(f.name, func(t *testing.T) {
			for _, v := range everyType {
				body := strings.Replace(f.body, "%v", v.js, 1)
				want := v.safeBool
				switch f.kind {
				case "bool":
					want = v.strictBool
				case "limit":
					want = map[string]string{"ok": "false", "refused": "refused"}[v.limit]
				}
				has := f.has
				if has == nil {
					has = func(*Command) bool { return false }
					if want == "true" {
						want = "false" // a flag that changes nothing the analysis says
					}
				}
				switch f.name {
				case "ordered":
					// absent, null and undefined: the default, true
					if v.js == "null" || v.js == `{"$undefined": true}` {
						want = "true"
					}
				case "autocommit":
					// autocommit: false is the transaction; absent is not
					want = map[string]string{"true": "false", "false": "true", "refused": "refused"}[want]
					if v.js == "null" || v.js == `{"$undefined": true}` {
						want = "false"
					}
				}
				got := outcome(t, body, has)
				if got != want {
					t.Errorf("%s: %s, want %s", v.js, got, want)
				}
				if got != "refused" && f.always != "" {
					if c, _ := FromMsg(msg(t, body)); !hasAction(f.always)(c) {
						t.Errorf("%s: actions %v lack %s", v.js, c.Analysis.Actions, f.always)
					}
				}
			}
		})
	}
}

// decimalIsZero follows the standard's reading of every encoding, the
// non-canonical ones (which the Extended JSON parser never writes) too.
func TestDecimalIsZero(t *testing.T) {
	for _, tt := range []struct {
		name string
		h, l uint64
		zero bool
	}{
		{"0", 0x3040000000000000, 0, true},
		{"-0E-6176", 0x8000000000000000, 0, true},
		{"1", 0x3040000000000000, 1, false},
		{"10^34-1", 0x3041ed09bead87c0, 0x378d8e63ffffffff, false},
		{"10^34, non-canonical", 0x3041ed09bead87c0, 0x378d8e6400000000, true},
		{"the 11 form, non-canonical", 0x6000000000000000 | 1, 1, true},
		{"Infinity", 0x7800000000000000, 0, false},
		{"NaN", 0x7c00000000000000, 0, false},
		{"sNaN", 0x7e00000000000000, 0, false},
	} {
		if got := decimalIsZero(tt.h, tt.l); got != tt.zero {
			t.Errorf("%s: zero %v, want %v", tt.name, got, tt.zero)
		}
	}
}

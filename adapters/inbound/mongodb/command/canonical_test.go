package command

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestCanonical(t *testing.T) {
	// Each case: two sends and whether they are the same statement.
	tests := []struct {
		name   string
		a, b   string
		aSeqs  []wire.Sequence
		bSeqs  []wire.Sequence
		same   bool
		render string // when set, Display(0) of a
	}{
		{name: "a new session and a later $clusterTime",
			a:    `{"delete": "t", "deletes": [{"q": {"a": 1}, "limit": 0}], "ordered": true, "lsid": {"id": {"$binary": {"base64": "AAAAAAAAAAAAAAAAAAAAAA==", "subType": "04"}}}, "$clusterTime": {"clusterTime": {"$timestamp": {"t": 1, "i": 1}}, "signature": {"hash": {"$binary": {"base64": "AAAAAAAAAAAAAAAAAAAAAAAAAAA=", "subType": "00"}}, "keyId": 0}}, "$db": "test"}`,
			b:    `{"delete": "t", "deletes": [{"q": {"a": 1}, "limit": 0}], "ordered": true, "lsid": {"id": {"$binary": {"base64": "AQEBAQEBAQEBAQEBAQEBAQ==", "subType": "04"}}}, "$clusterTime": {"clusterTime": {"$timestamp": {"t": 9, "i": 3}}, "signature": {"hash": {"$binary": {"base64": "AQEBAQEBAQEBAQEBAQEBAQEBAQE=", "subType": "00"}}, "keyId": {"$numberLong": "7"}}}, "$db": "test"}`,
			same: true, render: `{"delete":"t","$db":"test","deletes":[{"q":{"a":1},"limit":0}],"ordered":true}`},
		{name: "another filter value", a: `{"delete": "t", "deletes": [{"q": {"a": 1}, "limit": 0}], "$db": "test"}`,
			b: `{"delete": "t", "deletes": [{"q": {"a": 2}, "limit": 0}], "$db": "test"}`},
		{name: "another database", a: `{"drop": "t", "$db": "test"}`, b: `{"drop": "t", "$db": "prod"}`},
		{name: "another collection", a: `{"drop": "t", "$db": "test"}`, b: `{"drop": "u", "$db": "test"}`},
		{name: "txnNumber, $readPreference, maxTimeMS, Stable API, readConcern.afterClusterTime",
			a:    `{"find": "t", "filter": {"a": 1}, "readConcern": {"level": "majority"}, "$db": "test"}`,
			b:    `{"find": "t", "filter": {"a": 1}, "txnNumber": {"$numberLong": "3"}, "autocommit": false, "startTransaction": true, "maxTimeMS": 900, "apiVersion": "1", "apiStrict": true, "$readPreference": {"mode": "primary"}, "readConcern": {"level": "majority", "afterClusterTime": {"$timestamp": {"t": 5, "i": 1}}}, "$db": "test"}`,
			same: true},
		{name: "a readConcern with only afterClusterTime is none",
			a: `{"find": "t", "$db": "test"}`, b: `{"find": "t", "readConcern": {"afterClusterTime": {"$timestamp": {"t": 5, "i": 1}}}, "$db": "test"}`, same: true},
		{name: "another readConcern level", a: `{"find": "t", "readConcern": {"level": "local"}, "$db": "test"}`,
			b: `{"find": "t", "readConcern": {"level": "majority"}, "$db": "test"}`},
		{name: "top-level field order", a: `{"find": "t", "filter": {"a": 1}, "limit": 5, "$db": "test"}`,
			b: `{"find": "t", "$db": "test", "limit": 5, "filter": {"a": 1}}`, same: true},
		{name: "nested order matters (a sort)", a: `{"find": "t", "sort": {"a": 1, "b": 1}, "$db": "test"}`,
			b: `{"find": "t", "sort": {"b": 1, "a": 1}, "$db": "test"}`},
		{name: "an integral option as int32, int64 or double", a: `{"find": "t", "limit": 5, "batchSize": 2, "$db": "test"}`,
			b: `{"find": "t", "limit": {"$numberLong": "5"}, "batchSize": 2.0, "$db": "test"}`, same: true},
		{name: "a fractional option stays a double", a: `{"find": "t", "limit": 5, "$db": "test"}`, b: `{"find": "t", "limit": 5.5, "$db": "test"}`},
		{name: "types in a filter are kept", a: `{"find": "t", "filter": {"a": 1}, "$db": "test"}`,
			b: `{"find": "t", "filter": {"a": {"$numberLong": "1"}}, "$db": "test"}`},
		{name: "a document sequence is the array it stands for",
			a: `{"insert": "t", "documents": [{"_id": 1}, {"_id": 2}], "ordered": true, "$db": "test"}`,
			b: `{"insert": "t", "ordered": true, "$db": "test"}`, bSeqs: []wire.Sequence{sequence(t, "documents", `{"_id": 1}`, `{"_id": 2}`)},
			same: true},
		{name: "documents in another order", a: `{"insert": "t", "$db": "test"}`, aSeqs: []wire.Sequence{sequence(t, "documents", `{"_id": 1}`, `{"_id": 2}`)},
			b: `{"insert": "t", "$db": "test"}`, bSeqs: []wire.Sequence{sequence(t, "documents", `{"_id": 2}`, `{"_id": 1}`)}},
		{name: "comment is kept", a: `{"find": "t", "$db": "test"}`, b: `{"find": "t", "comment": "why", "$db": "test"}`},
		{name: "writeConcern is kept", a: `{"delete": "t", "deletes": [], "$db": "test"}`, b: `{"delete": "t", "deletes": [], "writeConcern": {"w": 0}, "$db": "test"}`},
		{name: "hello's driver metadata and nonce",
			a:    `{"hello": 1, "client": {"driver": {"name": "nodejs", "version": "7.9.0"}}, "speculativeAuthenticate": {"saslStart": 1}, "$db": "admin"}`,
			b:    `{"hello": 1, "client": {"driver": {"name": "mongo-go-driver", "version": "2.10.0"}}, "$db": "admin"}`,
			same: true, render: `{"hello":1,"$db":"admin"}`},
		{name: "client is data outside hello", a: `{"insert": "t", "client": 1, "$db": "test"}`, b: `{"insert": "t", "client": 2, "$db": "test"}`},
		{name: "command name case", a: `{"drop": "t", "$db": "test"}`, b: `{"Drop": "t", "$db": "test"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := analyseJSON(t, tt.a, tt.aSeqs...), analyseJSON(t, tt.b, tt.bSeqs...)
			if same := bytes.Equal(a.CanonicalBytes(), b.CanonicalBytes()); same != tt.same {
				t.Fatalf("same statement: %v, want %v\n a: %s\n b: %s", same, tt.same, a.Display(0), b.Display(0))
			}
			if err := bson.Raw(a.CanonicalBytes()).Validate(); err != nil {
				t.Fatalf("canonical bytes are not a BSON document: %v", err)
			}
			if tt.render != "" && a.Display(0) != tt.render {
				t.Fatalf("rendered %s, want %s", a.Display(0), tt.render)
			}
			if again := Canonicalize(a.Body, a.Sequences, ""); !bytes.Equal(again, a.CanonicalBytes()) {
				t.Fatal("Canonicalize is not deterministic")
			}
		})
	}
}

func TestDisplay(t *testing.T) {
	c := analyseJSON(t, `{"find": "t", "filter": {"when": {"$date": "2026-01-02T03:04:05Z"}, "id": {"$oid": "6b0e4e9adb6595edbdb7aa59"}, "n": {"$numberLong": "5"}, "f": 1.5}, "$db": "test"}`)
	want := `{"find":"t","$db":"test","filter":{"when":{"$date":"2026-01-02T03:04:05Z"},"id":{"$oid":"6b0e4e9adb6595edbdb7aa59"},"n":5,"f":1.5}}`
	if got := c.Display(0); got != want {
		t.Fatalf("relaxed Extended JSON:\n got %s\nwant %s", got, want)
	}
	long := analyseJSON(t, `{"insert": "t", "documents": [{"s": "`+strings.Repeat("é", 3000)+`"}], "$db": "test"}`)
	full := long.Display(0)
	for _, limit := range []int{100, 101, 102} {
		// Past limit it stops a few bytes on, at a UTF-8 boundary, unmarked:
		// app.Shown cuts and marks every protocol's rendering.
		got := long.Display(limit)
		if len(got) <= limit || len(got) > limit+utf8.UTFMax || !utf8.ValidString(got) || !strings.HasPrefix(full, got) {
			t.Fatalf("Display(%d) = %q…", limit, got[:min(len(got), 120)])
		}
	}
	if got := long.Display(len(full)); got != full {
		t.Fatalf("Display(len of the whole) cut it: %d of %d bytes", len(got), len(full))
	}
	// A large insert is rendered from its first documents only: the
	// rendering starts as the whole one does.
	docs := make([]string, 5000)
	for i := range docs {
		docs[i] = `{"_id": ` + itoa(i) + `, "s": "` + strings.Repeat("x", 50) + `"}`
	}
	big := analyseJSON(t, `{"insert": "t", "$db": "test"}`, sequence(t, "documents", docs...))
	got := big.Display(4096)
	want = `{"insert":"t","$db":"test","documents":[{"_id":0,"s":"xxxxx`
	if !strings.HasPrefix(got, want) || len(got) <= 4096 || len(got) > 4096+utf8.UTFMax {
		t.Fatalf("a 5,000-document insert rendered as %d bytes: %q…", len(got), got[:min(len(got), 200)])
	}
	// Numbers render shorter than their BSON: still past limit when the
	// whole is.
	nums := make([]string, 5000)
	for i := range nums {
		nums[i] = `{"a": 1, "b": 2, "c": 3}`
	}
	small := analyseJSON(t, `{"insert": "t", "$db": "test"}`, sequence(t, "documents", nums...))
	if got := small.Display(4096); len(got) <= 4096 || !strings.HasPrefix(small.Display(0), got) {
		t.Fatalf("5,000 small documents rendered as %d bytes", len(got))
	}
}

func TestVocabulary(t *testing.T) {
	acts := Actions()
	for i := 1; i < len(acts); i++ {
		if acts[i-1] >= acts[i] {
			t.Fatalf("Actions not sorted and unique at %s, %s", acts[i-1], acts[i])
		}
	}
	for _, a := range []string{"FIND", "AGGREGATE", "AGGREGATE_WRITE", "INSERT", "UPDATE", "DELETE", "FIND_AND_MODIFY", "BULK_WRITE",
		"DROP", "DROP_DATABASE", "DROP_INDEXES", "CREATE_INDEXES", "RENAME_COLLECTION", "CREATE", "COLL_MOD", "CREATE_USER",
		"DROP_USER", "UPDATE_USER", "GRANT_ROLES_TO_USER", "CREATE_ROLE", "SERVER_JS", "MAP_REDUCE", "KILL_OP", "COUNT", "DISTINCT",
		"LIST_COLLECTIONS", "LIST_DATABASES", "LIST_INDEXES", "HELLO", "AUTH", "GET_MORE", "KILL_CURSORS", "END_SESSIONS",
		"COMMIT_TRANSACTION", "ABORT_TRANSACTION", "EXPLAIN", "UNKNOWN"} {
		if !IsAction(a) || !IsAction(strings.ToLower(a)) {
			t.Errorf("%s missing from Actions()", a)
		}
	}
	if IsAction("DORP") || IsAction("") {
		t.Error("IsAction accepts a typo")
	}
}

func TestUpperSnake(t *testing.T) {
	for in, want := range map[string]string{"findAndModify": "FIND_AND_MODIFY", "dbStats": "DB_STATS", "reIndex": "RE_INDEX",
		"setDefaultRWConcern": "SET_DEFAULT_RW_CONCERN", "driverOIDTest": "DRIVER_OID_TEST", "whatsmyuri": "WHATSMYURI",
		"$eval": "EVAL", "killOp": "KILL_OP"} {
		if got := upperSnake(in); got != want {
			t.Errorf("upperSnake(%s) = %s, want %s", in, got, want)
		}
	}
}

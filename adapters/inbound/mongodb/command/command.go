package command

import (
	"fmt"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/domain"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Command is what the listener needs to know about one command a client
// sent (an OP_MSG, or an OP_QUERY against "<db>.$cmd").
type Command struct {
	// Name is the body's first key, as sent (e.g. "find", "isMaster").
	Name string
	// Database is "$db" as sent (for an OP_QUERY, the part of
	// fullCollectionName before its first dot). Empty when absent.
	Database string
	// Body is the command document as sent; Sequences the OP_MSG kind 1
	// sections, in order. Both alias the message.
	Body      bsoncore.Document
	Sequences []wire.Sequence

	// Analysis is what rules match: Actions (upper case, the vocabulary of
	// Actions()), Targets ("db.collection", or "db" for a command on a
	// database) and Functions (the server-side JavaScript operators and
	// the writing stages found: "$where", "$function", "$accumulator",
	// "$out", "$merge"). See docs/mongodb-listener.md, "Wire and analysis".
	Analysis domain.Analysis

	// Write is true when the command changes data, schema, users or the
	// server: every action but the read-only ones (FIND, COUNT, LIST_*…).
	Write bool
	// Continuation is true for getMore and killCursors: they continue or
	// end a cursor an earlier, allowed command opened, and are never held
	// on their own. CursorIDs are the cursors they name.
	Continuation bool
	CursorIDs    []int64
	// Ordered is a write's "ordered" option (true when absent, as the
	// server defaults): an ordered batch stops at its first error.
	Ordered bool

	// Hello is true for hello, isMaster and ismaster: the listener reads
	// maxMessageSizeBytes from the reply. AppName is the handshake's
	// client.application.name (return mode: "hoop-approval=return"),
	// Compression its compression list, both only on a Hello.
	Hello       bool
	AppName     string
	Compression []string
	// Auth is set for saslStart, saslContinue, authenticate and logout,
	// and for a hello carrying speculativeAuthenticate.
	Auth *Auth

	// InTransaction is true when the command runs inside a multi-document
	// transaction (autocommit: false); StartTransaction when it opens one.
	// TxnNumber is set for those and for retryable writes (HasTxnNumber).
	InTransaction    bool
	StartTransaction bool
	TxnNumber        int64
	HasTxnNumber     bool
	// LSID is the logical session id document as sent, nil when absent.
	LSID bsoncore.Document
	// MaxTimeMS is the command's maxTimeMS in milliseconds, 0 when absent.
	MaxTimeMS int64

	// canonical caches CanonicalBytes; canonDB is the database analyse
	// was given (OP_QUERY's), which Canonicalize needs.
	canonical []byte
	canonDB   string
	// The first action and target live here, in the Command's own
	// allocation (most commands have one of each).
	actionBuf, targetBuf [1]string
}

// CanonicalBytes returns the fingerprint's bytes: a BSON document, see
// Canonicalize for what is left out and how it is ordered. They are built
// at the first call (a command the rules allow outright never needs them)
// and kept; like the rest of a Command, not for concurrent use.
func (c *Command) CanonicalBytes() []byte {
	if c.canonical == nil {
		c.canonical = Canonicalize(c.Body, c.Sequences, c.canonDB)
	}
	return c.canonical
}

// Error is FromMsg's or FromQuery's answer to a command the server would
// refuse before running it (an empty body, a document sequence repeating
// a body field, a $cmd OP_QUERY that is not a command): the listener
// answers it with an error reply, as the server would, and keeps the
// connection.
type Error struct{ Reason string }

func (e *Error) Error() string { return "mongodb command: " + e.Reason }

// FromMsg analyses a decoded OP_MSG from a client. It never panics on any
// message DecodeMsg accepted. Errors are *Error.
func FromMsg(m *wire.Msg) (*Command, error) {
	return analyse(m.Body, m.Sequences, "")
}

// FromQuery analyses a decoded OP_QUERY against "<db>.$cmd" (the legacy
// handshake); the database comes from fullCollectionName. A query that
// wraps its command in "$query" (or "query"), as old drivers did with a
// read preference, is unwrapped. Errors are *Error, also for an OP_QUERY
// that is not a command (servers since 5.1 refuse those).
func FromQuery(q *wire.Query) (*Command, error) {
	if !q.IsCommand() {
		return nil, &Error{Reason: fmt.Sprintf("OP_QUERY on %q is not a command: only <db>.$cmd is supported", q.FullCollectionName)}
	}
	doc := q.Query
	// Servers unwrap once, when the first key is $query or query.
	if first, err := doc.IndexErr(0); err == nil && (first.Key() == "$query" || first.Key() == "query") {
		if inner, ok := first.Value().DocumentOK(); ok {
			doc = inner
		}
	}
	// The namespace names the database; servers refuse a $db beside it
	// (error 40621), and so does the analysis, so a $db can never move
	// the target a rule sees away from where the command runs.
	if _, err := doc.LookupErr("$db"); err == nil {
		return nil, &Error{Reason: "$db is not allowed in OP_QUERY requests"}
	}
	return analyse(doc, nil, q.Database())
}

// FromExtJSON analyses a command written as one Extended JSON document
// (relaxed or canonical, keys in the order written), as `sidecar explain`
// and docs/rules.md write a mongodb statement: `{"delete": "t", "deletes":
// [{"q": {}, "limit": 0}], "$db": "app"}`. A command without "$db" is
// read in database "test", as mongosh's first. Errors are *Error, also for
// text that is not one Extended JSON document.
func FromExtJSON(text string) (*Command, error) {
	var doc bson.D
	if err := bson.UnmarshalExtJSON([]byte(text), false, &doc); err != nil {
		return nil, &Error{Reason: "not a command in Extended JSON: " + err.Error()}
	}
	hasDB := false
	for _, e := range doc {
		hasDB = hasDB || e.Key == "$db"
	}
	if !hasDB {
		doc = append(doc, bson.E{Key: "$db", Value: "test"})
	}
	raw, err := bson.Marshal(doc)
	if err != nil {
		return nil, &Error{Reason: "not a command in Extended JSON: " + err.Error()}
	}
	return analyse(bsoncore.Document(raw), nil, "")
}

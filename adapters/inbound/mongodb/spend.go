package mongodb

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/domain"
)

// beforeRun are the error codes a MongoDB server answers with ok: 0 while
// it parses a command, checks it or its privileges, or finds it is not the
// server to run it, before it executes any of it (MongoDB's error_codes.yml).
// An error raised while executing (an aggregation's $merge that failed after
// writing a batch, a commitTransaction, WriteConflict, an interruption) is
// no proof.
var beforeRun = map[int32]string{
	2:     "BadValue",
	9:     "FailedToParse",
	13:    "Unauthorized",
	14:    "TypeMismatch",
	20:    "IllegalOperation",
	40:    "ConflictingUpdateOperators",
	59:    "CommandNotFound",
	72:    "InvalidOptions",
	73:    "InvalidNamespace",
	115:   "CommandNotSupported",
	166:   "CommandNotSupportedOnView",
	10107: "NotWritablePrimary",
	13435: "NotPrimaryNoSecondaryOk",
}

// proof returns the proof that nothing of an approved command ran
// (domain.NothingRan; spend_approval_on: accepted), read from body, the
// upstream's reply (nil when the listener could not read it), or the zero
// value, which spends the approval.
//
// The proof is a reply with ok: 0 whose code is in beforeRun and that
// reports nothing written: no writeErrors (a partial write: the documents
// before the failing one are written), no writeConcernError (the write was
// applied on the primary, only its acknowledgement failed) and no n above
// 0. An unreadable reply, ok: 1 with or without errors, and every other
// code spend it. docs/mongodb-listener.md.
func proof(body bsoncore.Document) domain.NothingRan {
	if body == nil || commandOK(body) {
		return domain.NothingRan{}
	}
	for _, k := range []string{"writeErrors", "writeConcernError"} {
		if _, err := body.LookupErr(k); err == nil {
			return domain.NothingRan{}
		}
	}
	if n, ok := body.Lookup("n").AsInt64OK(); ok && n > 0 {
		return domain.NothingRan{}
	}
	code, ok := body.Lookup("code").AsInt64OK()
	name, known := beforeRun[int32(code)]
	if !ok || !known || int64(int32(code)) != code {
		return domain.NothingRan{}
	}
	return domain.RefusedBeforeRun(fmt.Sprintf("ok: 0, code %d %s", code, name))
}

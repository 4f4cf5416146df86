package mongodb

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/domain"
)

// Error codes the listener answers with, each the server's own code and
// codeName for the same situation (src/mongo/base/error_codes.yml), so
// drivers treat them as MongoDB errors of that kind: none is a network or
// "not primary" error, none carries a retryable or transient label, so no
// driver retries a denial by itself (docs/mongodb-listener.md, "Denials").
const (
	// CodeHeld is a command held for a person, or denied by a policy
	// rule: 13 Unauthorized.
	CodeHeld = 13
	// CodeUnavailable is a command that needs approval while the Control
	// Plane cannot be reached (nothing was filed or run): 96
	// OperationFailed.
	CodeUnavailable = 96
	// CodeInterrupted is a command whose wait for a person ended because
	// the listener stops: 11600 InterruptedAtShutdown.
	CodeInterrupted = 11600
	// CodeOutOfMemory is a command refused because the Sidecar's
	// held-payload budget is full or too small for it: 146
	// ExceededMemoryLimit.
	CodeOutOfMemory = 146
	// CodeBadCommand is a command the server would refuse before running
	// it (command.Error; a legacy OP_QUERY that is not a command): 2
	// BadValue.
	CodeBadCommand = 2
	// CodeAuthFailed is a MONGODB-X509 login the listener refuses
	// (x509.go): 18 AuthenticationFailed.
	CodeAuthFailed = 18
	// CodeWithheld is a result a strict masking rule could not read, so
	// none of it is sent (masking.UnreadableError): 125 CommandFailed.
	CodeWithheld = 125
)

var codeNames = map[int32]string{
	CodeHeld:        "Unauthorized",
	CodeUnavailable: "OperationFailed",
	CodeInterrupted: "InterruptedAtShutdown",
	CodeOutOfMemory: "ExceededMemoryLimit",
	CodeBadCommand:  "BadValue",
	CodeAuthFailed:  "AuthenticationFailed",
	CodeWithheld:    "CommandFailed",
}

// errorDoc is a command's error reply, as the server answers one:
// {ok: 0.0, errmsg, code, codeName}.
func errorDoc(code int32, msg string) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().
		AppendDouble("ok", 0).
		AppendString("errmsg", msg).
		AppendInt32("code", code).
		AppendString("codeName", codeNames[code]).
		Build()
}

// denialDoc renders a gate denial: errmsg is the denial's text exactly (the
// spec's database text naming the approval id, the MCP variant when the
// Sidecar has an mcp block); code 13 Unauthorized for a held or
// policy-denied command (and one refused unchecked or too large to file), 96 OperationFailed when the Control Plane could
// not be asked, 11600 when the listener stops during a wait.
func denialDoc(d *domain.Denial) bsoncore.Document { return errorDoc(denialCodes[d.Kind], d.Message) }

// denialCodes is the error code of each domain.DenialKind (denial_test.go
// checks that every kind has one). A command refused unchecked is
// Unauthorized, as a policy denial.
var denialCodes = map[domain.DenialKind]int32{
	domain.DeniedForApproval: CodeHeld,
	domain.DeniedByPolicy:    CodeHeld,
	domain.DeniedUnavailable: CodeUnavailable,
	domain.DeniedShutdown:    CodeInterrupted,
	domain.DeniedUncheckable: CodeHeld,
	domain.DeniedTooLarge:    CodeHeld,
}

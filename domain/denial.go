package domain

import (
	"fmt"
	"strconv"
)

// DenialKind says why a statement was denied.
type DenialKind int

// The kinds of denial.
const (
	// DeniedForApproval: the statement is held for a person (X-Hoop-Denied: review).
	DeniedForApproval DenialKind = iota
	// DeniedByPolicy: a policy rule denies it outright (X-Hoop-Denied: policy).
	DeniedByPolicy
	// DeniedUnavailable: it needs approval but the Control Plane could not be
	// reached; nothing was filed or run (fail closed). X-Hoop-Denied: policy.
	DeniedUnavailable
	// DeniedShutdown: the statement was waiting for a person (wait mode) when
	// the Sidecar began to shut down; nothing was run and the approval is left
	// as it is. X-Hoop-Denied: review, with the approval's id and status.
	DeniedShutdown
	// DeniedTooLarge: it needs approval but the Control Plane refused to file
	// the request as too large (HTTP 413); nothing was filed or run, and the
	// identical resend is refused the same way. X-Hoop-Denied: policy.
	DeniedTooLarge
	// DeniedUncheckable: the listener could not read all of what the
	// statement runs (FailsClosed), so nothing was run; no approval is
	// filed. X-Hoop-Denied: policy.
	DeniedUncheckable
)

// DenialKinds lists every DenialKind, for the tests that check each
// protocol maps every kind to its own error.
func DenialKinds() []DenialKind {
	return []DenialKind{DeniedForApproval, DeniedByPolicy, DeniedUnavailable, DeniedShutdown, DeniedTooLarge, DeniedUncheckable}
}

// Denial is what a listener tells the client instead of running a statement.
// Protocol adapters render it natively (ErrorResponse, 403, PERMISSION_DENIED…).
type Denial struct {
	Kind DenialKind
	// ApprovalID is set for DeniedForApproval.
	ApprovalID string
	// Status is the approval's status, or "" when the Sidecar could not read it.
	Status Status
	// RetryAfter is true in return mode while the request is PENDING.
	RetryAfter bool
	// Rule names the approval or policy rule that matched.
	Rule string
	// Message is the human-readable text, as DenialMessage or PolicyMessage built it.
	Message string
}

// DeniedValue returns the X-Hoop-Denied value: "review" for an approval
// denial (held, or a wait ended by shutdown), "policy" for any other.
func (d Denial) DeniedValue() string {
	if d.NamesApproval() {
		return Names.DeniedReview
	}
	return Names.DeniedPolicy
}

// NamesApproval reports whether the denial carries an approval (its id and
// status go into the denial's fields): approval denials and waits ended by
// shutdown.
func (d Denial) NamesApproval() bool {
	return d.Kind == DeniedForApproval || (d.Kind == DeniedShutdown && d.ApprovalID != "")
}

// ShutdownMessage is the text when a wait-mode statement was still waiting
// for a person as the Sidecar shut down: nothing was run; the approval stays
// as it is, so the identical statement resent (to this Sidecar once it is
// back, or to another replica) finds it.
func ShutdownMessage(id string) string {
	return fmt.Sprintf("the Sidecar is shutting down: the statement was waiting for approval %s and was not run; resend the identical statement once the Sidecar is back, it reuses the same approval", id)
}

// DenialMessage returns the text of an approval denial, the same on every
// protocol (the http body, the PostgreSQL ErrorResponse message, …).
//
// For a PENDING (or unread, status "") request it is exactly the spec's text:
//
//	statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval <id>)
//
// and, when the Sidecar has an mcp block (withMCP), the spec's MCP variant
// that leads with the id and names the approval_wait tool:
//
//	approval <id>: waiting for approval; call the MCP tool approval_wait with the approval id, then resend the identical statement once it is approved (statement held for human approval)
//
// Other statuses keep the same frame with their own phase and action.
func DenialMessage(id string, st Status, reason string, withMCP bool) string {
	phase, action := "waiting for approval", "resend the identical statement once it is approved"
	mcpAction := "call the MCP tool " + FamilyApproval.Tool(ToolWait) + " with the approval id, then resend the identical statement once it is approved"
	switch st {
	case StatusApproved, StatusProcessing:
		phase = "another request is using the approval"
	case StatusRejected:
		phase = "rejected by a person"
		if reason != "" {
			phase += " (" + reason + ")"
		}
	case StatusRevoked:
		phase = "approval revoked by a person"
	case StatusExecuted:
		phase = "the approval was already used"
	case StatusExpired:
		phase = "the approval expired"
	case StatusPending, "":
	default:
		phase = "approval status " + string(st)
	}
	if NextFor(st) == NextStop && st != "" {
		action, mcpAction = "do not resend; only a person can ask again", "do not resend; only a person can ask again"
	}
	if withMCP {
		return fmt.Sprintf("approval %s: %s; %s (statement held for human approval)", id, phase, mcpAction)
	}
	return fmt.Sprintf("statement held for human approval: %s; %s (approval %s)", phase, action, id)
}

// PolicyMessage is the text of a policy denial.
func PolicyMessage(rule, message string) string {
	if message == "" {
		message = "this statement is not allowed on this listener"
	}
	return fmt.Sprintf("statement denied by policy %s: %s", rule, message)
}

// UnavailableMessage is the text when a statement needs approval but the
// Control Plane cannot be reached (fail closed): nothing was filed or run.
func UnavailableMessage(rule, cause string) string {
	return fmt.Sprintf("statement needs human approval (rule %s) but the Control Plane is unreachable: %s; nothing was run, try again later", rule, cause)
}

// TooLargeMessage is the text when a statement needs approval but the
// Control Plane refused the approval request as too large (HTTP 413): nothing
// was filed or run, and resending the identical statement is refused again,
// so the agent sends a smaller one (docs/control-plane-api.md, "Sizes").
func TooLargeMessage(rule string) string {
	return fmt.Sprintf("statement needs human approval (rule %s) but the Control Plane refused the approval request as too large; "+
		"nothing was filed or run; do not resend it: the identical statement is refused again, send a smaller one", rule)
}

// TokenRefusedMessage is the text when a statement needs approval but the
// Control Plane refused the Sidecar token (401/403): nothing was filed or
// run, and resending helps only once the Sidecar's operator fixes the token.
// It names neither the token nor the Control Plane's address.
func TokenRefusedMessage(rule string) string {
	return fmt.Sprintf("statement needs human approval (rule %s) but the Control Plane refused the Sidecar token; nothing was run; "+
		"resending helps only after the Sidecar's operator fixes its token", rule)
}

// UncheckableMessage is the text when a statement is refused because the
// listener could not read all of what it runs (FailsClosed): why says what
// could not be read. Unless the text was too large or deep to read at all
// (tooLarge), it says how to have such statements held for a person instead.
func UncheckableMessage(why string, tooLarge bool) string {
	msg := "hoop sidecar: this statement cannot be checked, so nothing was run: " + why
	if !tooLarge {
		msg += "; add UNKNOWN to an approval rule's actions to have such statements held for a person"
	}
	return msg
}

// Hint is what a database listener that has a hint field (PostgreSQL's
// ErrorResponse H) says to do next after d: for an approval, to ask the
// approver or call the MCP tool approval_wait (withMCP), then resend the
// identical statement, or not to resend once only a person can ask again.
func Hint(d Denial, withMCP bool) string {
	switch d.Kind {
	case DeniedForApproval:
		if d.Status != "" && NextFor(d.Status) == NextStop {
			return "Do not resend: only a person can ask again."
		}
		if withMCP {
			return fmt.Sprintf("Call the MCP tool %s with id %s; once it is approved, resend the identical statement (same text and parameters) on any connection. It runs once.",
				FamilyApproval.Tool(ToolWait), d.ApprovalID)
		}
		return fmt.Sprintf("Ask the person who approves to check approval %s in the Control Plane; once it is approved, resend the identical statement (same text and parameters) on any connection. It runs once.", d.ApprovalID)
	case DeniedByPolicy:
		return "This statement is not allowed through this listener; do not resend it."
	case DeniedUnavailable:
		return "Nothing was filed or run. Statements that need no approval keep working; resend this one once the Control Plane answers this Sidecar again."
	case DeniedShutdown:
		return d.Message
	case DeniedTooLarge:
		return "Nothing was filed or run. The Control Plane takes no approval request this large; do not resend the identical statement, send a smaller one."
	case DeniedUncheckable:
		return "Nothing was run or filed. Send it in a form the listener can read, or ask the listener's operator to hold such statements for a person."
	}
	return ""
}

// Field is one structured field of a denial: its name as an http header
// (gRPC sends the same name in lowercase as trailing metadata) and value.
type Field struct{ Name, Value string }

// Fields returns the structured fields of d (spec, "Find the approval in the
// denial"), in this order:
//
//	X-Hoop-Denied                             review for an approval denial, policy for any other; always
//	X-Hoop-Approval-Id, X-Hoop-Review-Id      the approval id
//	X-Hoop-Approval-Status, X-Hoop-Review-Status  the status; absent when the Sidecar could not read it
//	Retry-After                               "5", in return mode while the request is PENDING only
//
// Only a denial that names an approval (NamesApproval: an approval denial,
// or a wait ended by shutdown) carries it: a policy denial, or one because
// the Control Plane is unreachable, has X-Hoop-Denied: policy and nothing
// else, whatever else d holds, so no client reads an approval id or a retry
// hint beside "policy".
func (d Denial) Fields() []Field {
	out := []Field{{Names.HeaderDenied, d.DeniedValue()}}
	if !d.NamesApproval() {
		return out
	}
	if d.ApprovalID != "" {
		out = append(out, Field{Names.HeaderApprovalID, d.ApprovalID}, Field{Names.HeaderReviewID, d.ApprovalID})
	}
	if d.ApprovalID != "" && d.Status != "" {
		out = append(out, Field{Names.HeaderApprovalStatus, string(d.Status)}, Field{Names.HeaderReviewStatus, string(d.Status)})
	}
	if d.RetryAfter {
		out = append(out, Field{Names.HeaderRetryAfter, strconv.Itoa(RetryAfterSeconds)})
	}
	return out
}

package domain

import "fmt"

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
)

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
// denial, "policy" for any other.
func (d Denial) DeniedValue() string {
	if d.Kind == DeniedForApproval {
		return Names.DeniedReview
	}
	return Names.DeniedPolicy
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

// TokenRefusedMessage is the text when a statement needs approval but the
// Control Plane refused the Sidecar token (401/403): nothing was filed or
// run, and resending helps only once the Sidecar's operator fixes the token.
// It names neither the token nor the Control Plane's address.
func TokenRefusedMessage(rule string) string {
	return fmt.Sprintf("statement needs human approval (rule %s) but the Control Plane refused the Sidecar token; nothing was run; "+
		"resending helps only after the Sidecar's operator fixes its token", rule)
}

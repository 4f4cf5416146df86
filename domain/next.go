package domain

import "fmt"

// Next is what an agent does after reading an approval's status (spec,
// "Status and next"). Agents act on Next, never on the status itself.
type Next string

// The three values of next.
const (
	NextWait   Next = "wait"
	NextResend Next = "resend_identical_statement"
	NextStop   Next = "stop"
)

// NextFor maps a status to next: PENDING and PROCESSING → wait, APPROVED →
// resend_identical_statement, every other status (REJECTED, REVOKED,
// EXECUTED, EXPIRED and any unknown string) → stop.
func NextFor(s Status) Next {
	switch s {
	case StatusPending, StatusProcessing:
		return NextWait
	case StatusApproved:
		return NextResend
	default:
		return NextStop
	}
}

// Instruction is next in words for an agent that reads prose. It names the
// tools of the family the agent called (approval_* or review_*), the listener
// the resend goes to, and the rejection reason when one was given.
func Instruction(a Approval, status Status, f Family) string {
	wait := f.Tool(ToolWait)
	switch status {
	case StatusApproved:
		s := fmt.Sprintf("Approved. Resend the identical statement, byte for byte, to listener %s. It runs once.", a.ListenerName)
		if a.ExpiresAt != nil {
			s += fmt.Sprintf(" Resend it before %s.", a.ExpiresAt.UTC().Format("2006-01-02T15:04:05Z07:00"))
		}
		return s
	case StatusPending:
		return fmt.Sprintf("Waiting for a person to decide. Do not resend yet; call %s with this id again.", wait)
	case StatusProcessing:
		return fmt.Sprintf("Another request is using this approval; the upstream's answer spends it or gives it back. Do not resend yet; call %s with this id again.", wait)
	case StatusRejected:
		if a.RejectionReason != "" {
			return fmt.Sprintf("Rejected: %s. Do not resend. Only a person can ask again.", a.RejectionReason)
		}
		return "Rejected. Do not resend. Only a person can ask again."
	case StatusRevoked:
		return "Revoked by a person. Do not resend. Only a person can ask again."
	case StatusExecuted:
		return "Already executed: the approval was spent by an earlier resend. Do not resend. Only a person can ask again."
	case StatusExpired:
		return "Expired before it was used. Do not resend. Only a person can ask again."
	default:
		return fmt.Sprintf("Status %q is not one this Sidecar knows. Stop; a person checks the approval request in the Control Plane.", string(status))
	}
}

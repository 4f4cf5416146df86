package domain

import "fmt"

// Status is an approval request's status as the Control Plane reports it.
// The seven known values are the constants below; any other string is kept
// exactly as it came (see ParseStatus) and maps to NextStop.
type Status string

// The seven statuses of an approval request (spec, "Status and next").
const (
	StatusPending    Status = "PENDING"
	StatusApproved   Status = "APPROVED"
	StatusRejected   Status = "REJECTED"
	StatusRevoked    Status = "REVOKED"
	StatusProcessing Status = "PROCESSING"
	StatusExecuted   Status = "EXECUTED"
	StatusExpired    Status = "EXPIRED"
)

// KnownStatuses lists the seven statuses in the order the spec names them for
// the approval_list filter.
var KnownStatuses = []Status{
	StatusPending, StatusApproved, StatusRejected, StatusRevoked,
	StatusProcessing, StatusExecuted, StatusExpired,
}

// ParseStatus returns s as a Status. Unknown strings are kept verbatim (they
// are not an error: a newer Control Plane may add statuses); IsKnown tells them apart.
func ParseStatus(s string) Status { return Status(s) }

// IsKnown reports whether s is one of the seven statuses.
func (s Status) IsKnown() bool {
	for _, k := range KnownStatuses {
		if s == k {
			return true
		}
	}
	return false
}

// IsOpen reports whether a person or the Sidecar may still act on the request
// (PENDING, APPROVED, PROCESSING).
func (s Status) IsOpen() bool {
	return s == StatusPending || s == StatusApproved || s == StatusProcessing
}

// IsDecided reports whether a person has decided (anything but PENDING). An
// unknown status counts as decided, so a waiter stops waiting on it.
func (s Status) IsDecided() bool { return s != StatusPending && s != "" }

// transitions is the legal state machine. Keys are the from-status.
//
//	PENDING    → APPROVED (a person approves), REJECTED (a person rejects), EXPIRED (time limit)
//	APPROVED   → EXECUTED (claimed, spend on sent), PROCESSING (claimed, spend on accepted),
//	             REVOKED (a person takes it back), EXPIRED (time limit)
//	PROCESSING → EXECUTED (upstream accepted), APPROVED (upstream refused: given back),
//	             REVOKED (a person clears a request whose Sidecar never settled it)
//	REJECTED, REVOKED, EXECUTED, EXPIRED are final. A person's reopen
//	(reopen.go) files a new PENDING request; it moves no status.
var transitions = map[Status][]Status{
	StatusPending:    {StatusApproved, StatusRejected, StatusExpired},
	StatusApproved:   {StatusExecuted, StatusProcessing, StatusRevoked, StatusExpired},
	StatusProcessing: {StatusExecuted, StatusApproved, StatusRevoked},
}

// TransitionError is returned by Transition for a move the state machine does
// not allow, e.g. EXECUTED → APPROVED.
type TransitionError struct {
	From, To Status
}

func (e *TransitionError) Error() string {
	return fmt.Sprintf("illegal approval transition %s → %s", e.From, e.To)
}

// CanTransition reports whether from → to is legal.
func CanTransition(from, to Status) bool {
	for _, t := range transitions[from] {
		if t == to {
			return true
		}
	}
	return false
}

// Transition returns to when from → to is legal, else a *TransitionError.
func Transition(from, to Status) (Status, error) {
	if !CanTransition(from, to) {
		return from, &TransitionError{From: from, To: to}
	}
	return to, nil
}

// Reusable is the reuse rule (docs/architecture.md, "The core's rules"): a new send of
// the same fingerprint reuses an existing request that is open (PENDING,
// APPROVED, PROCESSING) or was refused by a person (REJECTED, REVOKED), so
// approvers are not flooded with duplicates. After EXECUTED or EXPIRED (or an
// unknown status) a new request is filed.
func Reusable(s Status) bool {
	return s.IsOpen() || s == StatusRejected || s == StatusRevoked
}

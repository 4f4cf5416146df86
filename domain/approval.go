package domain

import "time"

// Approval is one approval request as the Control Plane keeps it. It never
// holds the statement: agents read approvals, and they must never read the
// statement back.
type Approval struct {
	ID           string
	Status       Status
	ListenerName string
	ApprovalRule string
	CreatedAt    time.Time
	// DecidedAt is nil until a person (or the time limit) decides.
	DecidedAt *time.Time
	// ExpiresAt is set only when the approval rule has a time limit.
	ExpiresAt *time.Time
	// RejectionReason is set only on a rejection that gave one.
	RejectionReason string
}

// EffectiveStatus applies the time limit: a PENDING or APPROVED approval whose
// ExpiresAt is at or before now reads as EXPIRED.
func (a Approval) EffectiveStatus(now time.Time) Status {
	if a.ExpiresAt != nil && !now.Before(*a.ExpiresAt) &&
		(a.Status == StatusPending || a.Status == StatusApproved) {
		return StatusExpired
	}
	return a.Status
}

package domain

import "time"

// View is the JSON an agent reads for one approval request: the body of the
// status path (spec, "Read the status on an http listener") and of the MCP
// tools approval_status / approval_wait (spec, "Tools"). It never carries the
// statement.
//
// Keys: expires_at only when the rule set a time limit; rejection_reason only
// on a rejection that gave one; decided_at is null until decided; instruction
// only on MCP answers; timed_out and waited_seconds only from approval_wait.
type View struct {
	ID              string     `json:"id"`
	Status          Status     `json:"status"`
	ListenerName    string     `json:"listener_name"`
	ApprovalRule    string     `json:"approval_rule"`
	CreatedAt       time.Time  `json:"created_at"`
	DecidedAt       *time.Time `json:"decided_at"`
	ExpiresAt       *time.Time `json:"expires_at,omitempty"`
	RejectionReason string     `json:"rejection_reason,omitempty"`
	Next            Next       `json:"next"`
	Instruction     string     `json:"instruction,omitempty"`
	TimedOut        *bool      `json:"timed_out,omitempty"`
	WaitedSeconds   *int       `json:"waited_seconds,omitempty"`
}

// NewView builds the agent's view of a at time now. Times are rendered in UTC
// with second precision (RFC 3339). The status is the effective one (a lapsed
// time limit reads EXPIRED). withInstruction adds the instruction sentence
// worded for family f.
func NewView(a Approval, now time.Time, withInstruction bool, f Family) View {
	st := a.EffectiveStatus(now)
	v := View{
		ID:              a.ID,
		Status:          st,
		ListenerName:    a.ListenerName,
		ApprovalRule:    a.ApprovalRule,
		CreatedAt:       a.CreatedAt.UTC().Truncate(time.Second),
		DecidedAt:       utcSecond(a.DecidedAt),
		ExpiresAt:       utcSecond(a.ExpiresAt),
		RejectionReason: a.RejectionReason,
		Next:            NextFor(st),
	}
	if st == StatusExpired && a.Status != StatusExpired && a.ExpiresAt != nil {
		// Lapsed here (PENDING or APPROVED past the limit): decided_at is
		// expires_at, as the Control Plane reports it (control-plane-api.md).
		v.DecidedAt = utcSecond(a.ExpiresAt)
	}
	if withInstruction {
		v.Instruction = Instruction(a, st, f)
	}
	return v
}

func utcSecond(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Second)
	return &u
}

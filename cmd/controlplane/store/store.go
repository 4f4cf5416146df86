package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hoophq/sidecar/domain"
)

// Errors the Store returns (errors.Is works on wrapped ones).
var (
	// ErrNotFound: no request with this id, or it belongs to another Sidecar.
	ErrNotFound = errors.New("approval request not found")
	// ErrConflict: the request is not in the status the call needs. The
	// error is a *ConflictError that carries the current state.
	ErrConflict = errors.New("approval request is not in the status this call needs")
)

// ConflictError is returned when a Claim, Settle, Decide or Reopen finds the
// request in another status. Current is its state (expiry applied) at that
// moment.
type ConflictError struct {
	Current Record
	// Want is the status the call needed, To the status it would have set.
	Want, To domain.Status
	// Why, when set, says it in words instead (Reopen: "it is APPROVED
	// (reopen needs REJECTED or REVOKED)", "it was reopened already as …").
	Why string
}

func (e *ConflictError) Error() string {
	if e.Why != "" {
		return fmt.Sprintf("approval %s: %s", e.Current.ID, e.Why)
	}
	return fmt.Sprintf("approval %s is %s; moving it to %s needs %s", e.Current.ID, e.Current.Status, e.To, e.Want)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Record is one approval request with everything the Control Plane keeps.
// The embedded Approval is what the Sidecar API shows; Statement,
// ClientIdentity, DecidedBy and SidecarReads are shown to approvers only.
type Record struct {
	domain.Approval
	Sidecar        string
	Fingerprint    string
	Statement      string
	Protocol       string
	ClientIdentity string
	// DecidedBy is the approver's name from the config ("" until decided).
	DecidedBy string
	// SidecarReads counts the Sidecar's reads of this request (Read calls).
	SidecarReads int64
	// ReopenedFrom is the refused request a person reopened as this one,
	// ReopenedBy that person ("" for a request a Sidecar filed).
	ReopenedFrom, ReopenedBy string
	// ReopenedAs is the request this refused one was reopened as ("" until
	// a person reopens it).
	ReopenedAs string
	// ClaimKey is the key of the claim that last won this request ("" when
	// none did, or the Sidecar sent none): a claim or settle repeated with
	// it is answered as the first was (docs/control-plane-api.md, "Claim").
	ClaimKey string
	// LeaseUntil is when a PROCESSING request's lease lapses unless its
	// Sidecar renews it (nil: no lease, or not PROCESSING).
	LeaseUntil *time.Time
	// SettledBy is SettledByLease for a request the Control Plane settled
	// as EXECUTED, outcome unknown, because its lease lapsed; "" otherwise.
	SettledBy string
	// Approvals are the approvals given so far, oldest first, one per
	// approver (Approve).
	Approvals []Vote
	// approvalsText is the stored text Approvals was read from, which
	// Approve's conditional update compares.
	approvalsText string
}

// Vote is one approver's approval of a request: who, the groups of the
// request's policy it counts for (none when the policy names no groups),
// when, and the reason given ("" when none).
type Vote struct {
	Approver string    `json:"approver"`
	Groups   []string  `json:"groups,omitempty"`
	At       time.Time `json:"at"`
	Reason   string    `json:"reason,omitempty"`
}

// FileInput is a Sidecar's request to file (or reuse) an approval request.
type FileInput struct {
	Fingerprint, ListenerName, ApprovalRule string
	Statement, Protocol, ClientIdentity     string
	// TimeLimit, when > 0, sets ExpiresAt = CreatedAt + TimeLimit.
	TimeLimit time.Duration
}

// Filter selects requests for List.
type Filter struct {
	// Sidecar limits the list to one Sidecar; "" lists every Sidecar's.
	Sidecar string
	// Status matches the effective status; "" matches any.
	Status domain.Status
	// Limit is the maximum number of records (callers keep it 1..200).
	Limit int
}

// Store keeps approval requests. Implementations are safe for concurrent use
// by many goroutines and by many processes sharing the same database. Times
// are truncated to whole seconds (UTC); now is the caller's clock.
type Store interface {
	// File files a new PENDING request for sidecar, or returns the newest one
	// with this fingerprint when domain.Reusable says so (reused = true).
	File(ctx context.Context, sidecar string, in FileInput, now time.Time) (rec Record, reused bool, err error)
	// Read returns sidecar's request id and counts one Sidecar read.
	// ErrNotFound for an unknown id or another Sidecar's.
	Read(ctx context.Context, sidecar, id string, now time.Time) (Record, error)
	// Get returns request id of any Sidecar (approver side). ErrNotFound.
	Get(ctx context.Context, id string, now time.Time) (Record, error)
	// List returns requests newest first (created_at, then filing order).
	List(ctx context.Context, f Filter, now time.Time) ([]Record, error)
	// Claim moves sidecar's APPROVED, unexpired request id with this
	// fingerprint to `to` (EXECUTED or PROCESSING) in one conditional
	// update. won is false when the condition did not hold; rec is then the
	// current state. The winner's key (may be "") is kept; a claim whose key
	// won already and whose request is still in status `to` wins again with
	// the current state (ClaimedBy). ErrNotFound for an unknown id or
	// another Sidecar's.
	Claim(ctx context.Context, sidecar, id, fingerprint, key string, to domain.Status, now time.Time) (rec Record, won bool, err error)
	// Settle ends sidecar's PROCESSING request: accepted → EXECUTED, else
	// APPROVED. A key that is not "" must be the winning claim's. A settle
	// whose key is the claim's and whose target status is already the
	// request's answers it again without error. *ConflictError when it is
	// not PROCESSING (or another claim's); ErrNotFound.
	Settle(ctx context.Context, sidecar, id, key string, accepted bool, now time.Time) (Record, error)
	// Decide is an approver's decision: to is APPROVED, REJECTED or REVOKED,
	// allowed by domain.Transition from the effective status. It sets
	// DecidedAt = now, DecidedBy = by and, for REJECTED, the reason. It
	// returns the new state and the status it moved from; *ConflictError
	// when the transition is not allowed; ErrNotFound. The Control Plane
	// approves through Approve (which keeps each approval for the policies);
	// Decide to APPROVED is a single approver's decision without a record.
	Decide(ctx context.Context, id string, to domain.Status, reason, by string, now time.Time) (rec Record, from domain.Status, err error)
	// Approve records v, an approver's approval of PENDING request id, and
	// moves the request to APPROVED (DecidedAt = now, DecidedBy =
	// v.Approver) when met says the approvals, v included, are enough; else
	// it stays PENDING. One conditional update on the approvals read, so
	// concurrent approvals (on any number of replicas) are all kept and the
	// request is approved once. An approver who approved already is not
	// counted again (counted false, no change). *ConflictError when it is
	// not PENDING (or expired); ErrNotFound.
	Approve(ctx context.Context, id string, v Vote, met func([]Vote) bool, now time.Time) (rec Record, from domain.Status, counted bool, err error)
	// Reopen is a person asking again (domain.Reopenable): when request id
	// is REJECTED or REVOKED and is the newest of its fingerprint, it files
	// a new PENDING request for the same Sidecar with the same fingerprint,
	// statement, listener, rule, protocol, client identity and time limit
	// (counted from now), with ReopenedFrom = id and ReopenedBy = by, and
	// sets the refused one's ReopenedAs. The refused request keeps its
	// status and decision. It returns the new request and the refused one;
	// *ConflictError (Why set) for any other status or a request reopened
	// already; ErrNotFound. Serialised with File per (sidecar, fingerprint),
	// so of concurrent reopens (on any number of replicas) exactly one wins.
	Reopen(ctx context.Context, id, by string, now time.Time) (opened, refused Record, err error)
	// Renew extends sidecar's PROCESSING request id, claimed with key (not
	// ""), to now + the store's lease, while its lease holds. It returns the
	// request; *ConflictError when it is not PROCESSING under that key or
	// its lease lapsed; ErrNotFound.
	Renew(ctx context.Context, sidecar, id, key string, now time.Time) (Record, error)
	// Lapse writes EXECUTED, SettledBy SettledByLease, on every PROCESSING
	// request whose lease lapsed at now (reads already see them so,
	// Effective) and returns how many.
	Lapse(ctx context.Context, now time.Time) (int64, error)
	// Lease is the lease a claim to PROCESSING gets (0: none).
	Lease() time.Duration
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
}

// Actions maps an approver's action (approve, reject, revoke) to the status
// Decide sets.
var Actions = map[string]domain.Status{
	"approve": domain.StatusApproved,
	"reject":  domain.StatusRejected,
	"revoke":  domain.StatusRevoked,
}

// Effective returns r with the time limit and the lease applied at now: a
// PENDING or APPROVED request at or past ExpiresAt reads EXPIRED with
// DecidedAt = ExpiresAt; a PROCESSING one at or past LeaseUntil reads
// EXECUTED with SettledBy = SettledByLease (Lapse writes it so).
func (r Record) Effective(now time.Time) Record {
	if r.Status == domain.StatusProcessing && r.LeaseUntil != nil && !now.Before(*r.LeaseUntil) {
		r.Status, r.SettledBy = domain.StatusExecuted, SettledByLease
		return r
	}
	if st := r.EffectiveStatus(now); st != r.Status {
		r.Status = st
		if r.DecidedAt == nil && r.ExpiresAt != nil {
			e := *r.ExpiresAt
			r.DecidedAt = &e
		}
	}
	return r
}

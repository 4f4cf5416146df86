package ports

import (
	"context"
	"crypto/rand"
	"errors"
	"time"

	"github.com/hoophq/sidecar/domain"
)

// Errors a ControlPlane returns. Implementations wrap them (errors.Is works)
// and add the cause.
var (
	// ErrNotFound: the id is unknown, or belongs to another Sidecar (the
	// Control Plane scopes every read to the caller's token).
	ErrNotFound = errors.New("approval request not found on this Sidecar")
	// ErrUnavailable: the Control Plane could not be reached or answered 5xx.
	ErrUnavailable = errors.New("control plane unavailable")
	// ErrOlder: the Control Plane does not implement the API version this
	// Sidecar needs (docs/control-plane-api.md, "Versions").
	ErrOlder = errors.New("the Control Plane is older than this Sidecar")
	// ErrUnauthorized: the Sidecar token was refused.
	ErrUnauthorized = errors.New("control plane refused the Sidecar token")
	// ErrConflict: a claim or settle found the approval in another status.
	ErrConflict = errors.New("approval is not in the status this call needs")
	// ErrTooLarge: the Control Plane refused the request as larger than it
	// takes (HTTP 413, docs/control-plane-api.md, "Sizes"). Sending the same
	// request again is refused again: it is not an outage.
	ErrTooLarge = errors.New("the Control Plane refused the request as too large")
)

// SpendOn says when a claimed approval is spent (listener setting
// spend_approval_on).
type SpendOn string

// The two spend modes.
const (
	// SpendOnSent spends the approval (EXECUTED) when the statement is forwarded.
	SpendOnSent SpendOn = "sent"
	// SpendOnAccepted moves it to PROCESSING, then EXECUTED when the upstream
	// accepts or back to APPROVED when it refuses.
	SpendOnAccepted SpendOn = "accepted"
)

// ClaimKey names one attempt to spend an approval: the Sidecar picks a new
// one for each statement it decides (NewClaimKey) and sends it with the
// claim and the settles that follow, so the Control Plane can answer a
// repeated call as it answered the first (docs/control-plane-api.md,
// "Claim"). At most 128 printable ASCII bytes.
type ClaimKey string

// NewClaimKey returns a fresh random key (26 characters, 130 random bits).
func NewClaimKey() ClaimKey { return ClaimKey(rand.Text()) }

// ClaimKeyKeeper is a ControlPlane that can say whether its Control Plane
// keeps claim keys: answers a repeated claim or settle by its key and
// refuses a settle with another attempt's key. A Control Plane that ignores
// keys would apply a repeated give-back to the next attempt's claim, so a
// give-back is repeated only for a claim whose answer echoed its key, and a
// keyed give-back of a lost claim is sent only where keys are kept.
type ClaimKeyKeeper interface {
	// KeepsClaimKeys is true once the Control Plane has said it keeps
	// claim keys (its info, or a won claim's answer echoing claim_key);
	// false while unknown.
	KeepsClaimKeys() bool
	// EchoedClaimKey is true while key's claim (spend_approval_on:
	// accepted) won with an answer that echoed it and is not settled.
	EchoedClaimKey(key ClaimKey) bool
}

// KeepsClaimKeys reports whether cp is a ClaimKeyKeeper that keeps claim
// keys; false for any other ControlPlane.
func KeepsClaimKeys(cp ControlPlane) bool {
	k, ok := cp.(ClaimKeyKeeper)
	return ok && k.KeepsClaimKeys()
}

// EchoedClaimKey reports whether cp is a ClaimKeyKeeper whose claim with
// key won with its key echoed; false for any other ControlPlane.
func EchoedClaimKey(cp ControlPlane, key ClaimKey) bool {
	k, ok := cp.(ClaimKeyKeeper)
	return ok && k.EchoedClaimKey(key)
}

// Renewer is a ControlPlane whose PROCESSING requests hold a lease that
// the claim's owner renews while its statement is with the upstream
// (docs/control-plane-api.md, "Renew"): a Sidecar that stops renewing (it
// was killed, or lost the Control Plane) leaves the request to be settled
// as EXECUTED, outcome unknown, when the lease lapses.
type Renewer interface {
	// Renew extends the lease of PROCESSING request id held by the claim
	// that key names and returns the lease's length (0 when the Control
	// Plane gave none). Errors: ErrConflict (not PROCESSING under that
	// claim, or the lease lapsed), ErrOlder (a Control Plane without
	// leases), ErrNotFound, ErrUnavailable, ErrUnauthorized.
	Renew(ctx context.Context, id string, key ClaimKey) (lease time.Duration, err error)
}

// FileRequest asks the Control Plane to file an approval request for a
// fingerprint, or to return the one it may reuse (domain.Reusable).
type FileRequest struct {
	Fingerprint  string
	ListenerName string
	ApprovalRule string
	// Statement is a readable rendering for the approver, at most
	// app.MaxShownStatement bytes (the gate cuts longer ones, app.Shown). It
	// is sent to the Control Plane only, never returned to agents.
	Statement string
	Protocol  string
	// ClientIdentity is the login user (databases) or a label; may be empty.
	ClientIdentity string
	// TimeLimit, when not zero, sets expires_at = created_at + TimeLimit.
	TimeLimit time.Duration
}

// Filed is the answer to File.
type Filed struct {
	Approval domain.Approval
	// Reused is true when an existing request was returned.
	Reused bool
	// StatusKnown is false when the Control Plane's answer carried no status
	// (the caller may then read it with Get).
	StatusKnown bool
}

// ControlPlane is every call a Sidecar makes to its Control Plane
// (docs/control-plane-api.md). All reads are scoped to the Sidecar's token.
type ControlPlane interface {
	// File files or reuses an approval request. Errors: ErrUnavailable,
	// ErrOlder, ErrUnauthorized, ErrTooLarge.
	File(ctx context.Context, r FileRequest) (Filed, error)
	// Get reads one approval request. Errors: ErrNotFound, ErrUnavailable,
	// ErrOlder, ErrUnauthorized.
	Get(ctx context.Context, id string) (domain.Approval, error)
	// List lists this Sidecar's approval requests, newest first; status ""
	// means every status; limit is 1..200.
	List(ctx context.Context, status domain.Status, limit int) ([]domain.Approval, error)
	// Claim atomically moves an APPROVED request with this fingerprint to
	// EXECUTED (SpendOnSent) or PROCESSING (SpendOnAccepted). won is false
	// when it was not APPROVED (the answer then carries its current state).
	// key names this attempt (NewClaimKey): a claim repeated with the same
	// key after the first one took effect wins again with the current state,
	// so an implementation retries a claim whose answer was lost; "" claims
	// without a key (never retried).
	Claim(ctx context.Context, id, fingerprint string, spend SpendOn, key ClaimKey) (a domain.Approval, won bool, err error)
	// Settle ends a PROCESSING request: accepted → EXECUTED, refused →
	// APPROVED. key is the winning claim's: a settle of another attempt's
	// claim is refused, and one repeated after it took effect answers the
	// current state, so an implementation retries it. ErrConflict when it
	// is not PROCESSING (or not this claim's).
	Settle(ctx context.Context, id string, key ClaimKey, accepted bool) (domain.Approval, error)
}

package controlplane

import (
	"errors"
	"time"

	"github.com/hoophq/sidecar/domain"
)

// wireApproval is the contract's approval object (docs/control-plane-api.md,
// "The approval object") with the extra keys some answers add.
type wireApproval struct {
	ID              string     `json:"id"`
	Status          *string    `json:"status"`
	ListenerName    string     `json:"listener_name"`
	ApprovalRule    string     `json:"approval_rule"`
	Protocol        string     `json:"protocol"`
	Fingerprint     string     `json:"fingerprint"`
	CreatedAt       time.Time  `json:"created_at"`
	DecidedAt       *time.Time `json:"decided_at"`
	ExpiresAt       *time.Time `json:"expires_at"`
	RejectionReason *string    `json:"rejection_reason"`
	// Reused is on File answers, Claimed on Claim answers.
	Reused  *bool `json:"reused"`
	Claimed *bool `json:"claimed"`
}

// errNoID: an approval object without an id cannot be used.
var errNoID = errors.New("approval object has no id")

// toDomain maps w to a domain.Approval. An unknown status string is kept as
// it came (domain.ParseStatus); null or absent decided_at, expires_at and
// rejection_reason stay unset. statusKnown is false when "status" was absent,
// null or empty.
func (w wireApproval) toDomain() (a domain.Approval, statusKnown bool, err error) {
	if w.ID == "" {
		return a, false, errNoID
	}
	a = domain.Approval{ID: w.ID, ListenerName: w.ListenerName, ApprovalRule: w.ApprovalRule,
		CreatedAt: w.CreatedAt.UTC(), DecidedAt: utc(w.DecidedAt), ExpiresAt: utc(w.ExpiresAt)}
	if w.RejectionReason != nil {
		a.RejectionReason = *w.RejectionReason
	}
	if w.Status != nil && *w.Status != "" {
		a.Status, statusKnown = domain.ParseStatus(*w.Status), true
	}
	return a, statusKnown, nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// fileBody is the body of POST /api/sidecars/reviews.
type fileBody struct {
	Fingerprint      string `json:"fingerprint"`
	ListenerName     string `json:"listener_name"`
	ApprovalRule     string `json:"approval_rule"`
	Statement        string `json:"statement"`
	Protocol         string `json:"protocol"`
	ClientIdentity   string `json:"client_identity,omitempty"`
	TimeLimitSeconds int64  `json:"time_limit_seconds,omitempty"`
}

// claimBody is the body of POST /api/sidecars/reviews/{id}/claim.
type claimBody struct {
	Fingerprint     string `json:"fingerprint"`
	SpendApprovalOn string `json:"spend_approval_on"`
	ClaimKey        string `json:"claim_key,omitempty"`
}

// settleBody is the body of POST /api/sidecars/reviews/{id}/settle.
type settleBody struct {
	Outcome  string `json:"outcome"`
	ClaimKey string `json:"claim_key,omitempty"`
}

// conflictBody is a 409's body: the error plus the current state.
type conflictBody struct {
	Code    string        `json:"code"`
	Message string        `json:"message"`
	Review  *wireApproval `json:"review"`
}

// listBody is the answer of GET /api/sidecars/reviews.
type listBody struct {
	Reviews []wireApproval `json:"reviews"`
}

// Info is the answer of GET /api/sidecars/info.
type Info struct {
	// APIVersion is the contract version the Control Plane implements.
	APIVersion int `json:"api_version"`
	// Version is the Control Plane's own version.
	Version string `json:"version"`
	// Sidecar is the Sidecar name the token maps to.
	Sidecar string `json:"sidecar"`
	// ClaimKeys is true when the Control Plane keeps claim keys
	// (docs/control-plane-api.md, "Claim").
	ClaimKeys bool `json:"claim_keys,omitempty"`
}

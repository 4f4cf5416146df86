package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/domain"
)

// MaxBody is the largest request body the Control Plane takes, in bytes (a
// statement rendering included): a longer one is answered 413 too_large
// (docs/control-plane-api.md, "Sizes").
const MaxBody = 1 << 20

// Approval is the approval object of the Sidecar API
// (docs/control-plane-api.md, "The approval object"). It never holds the
// statement.
type Approval struct {
	ID              string        `json:"id"`
	Status          domain.Status `json:"status"`
	ListenerName    string        `json:"listener_name"`
	ApprovalRule    string        `json:"approval_rule"`
	Protocol        string        `json:"protocol"`
	Fingerprint     string        `json:"fingerprint"`
	CreatedAt       time.Time     `json:"created_at"`
	DecidedAt       *time.Time    `json:"decided_at"`
	ExpiresAt       *time.Time    `json:"expires_at,omitempty"`
	RejectionReason string        `json:"rejection_reason,omitempty"`
}

// Review is the approver API's object: the approval object plus what only
// approvers see. DecidedBy is null until a person decides; SidecarReads
// counts the Sidecar's GETs of /api/sidecars/reviews/{id}. The reopened_*
// keys are present only on a request a person reopened (reopened_as) or one
// filed by a reopen (reopened_from, reopened_by).
type Review struct {
	Approval
	Sidecar        string  `json:"sidecar"`
	Statement      string  `json:"statement"`
	ClientIdentity string  `json:"client_identity"`
	DecidedBy      *string `json:"decided_by"`
	SidecarReads   int64   `json:"sidecar_reads"`
	ReopenedFrom   string  `json:"reopened_from,omitempty"`
	ReopenedBy     string  `json:"reopened_by,omitempty"`
	ReopenedAs     string  `json:"reopened_as,omitempty"`
	// SettledBy is "lease" on an EXECUTED request the Control Plane settled
	// because its Sidecar stopped renewing the lease (outcome unknown).
	SettledBy string `json:"settled_by,omitempty"`
	// Approvals are the approvals given so far, oldest first ([] for none);
	// Required is how many its approval policy needs (docs/controlplane.md,
	// "Approval policies"). A PENDING request with fewer stays PENDING.
	Approvals []ApprovalGiven `json:"approvals"`
	Required  int             `json:"required"`
	// MissingGroups, on a PENDING request under all_groups_must_approve,
	// are the groups no approval counts for yet.
	MissingGroups []string `json:"missing_groups,omitempty"`
}

// ApprovalGiven is one approver's approval of a request: Group is the first
// of the policy's groups it counts for, Groups all of them (both left out
// when the policy names no groups); Reason is the one given, if any.
type ApprovalGiven struct {
	Approver string    `json:"approver"`
	Group    string    `json:"group,omitempty"`
	Groups   []string  `json:"groups,omitempty"`
	At       time.Time `json:"at"`
	Reason   string    `json:"reason,omitempty"`
}

func approvalOf(r store.Record) Approval {
	return Approval{
		ID: r.ID, Status: r.Status, ListenerName: r.ListenerName, ApprovalRule: r.ApprovalRule,
		Protocol: r.Protocol, Fingerprint: r.Fingerprint, CreatedAt: r.CreatedAt.UTC().Truncate(time.Second),
		DecidedAt: second(r.DecidedAt), ExpiresAt: second(r.ExpiresAt), RejectionReason: r.RejectionReason,
	}
}

// reviewOf is rec as approvers see it, with the approvals its policy needs.
func (s *srv) reviewOf(r store.Record) Review {
	v := Review{Approvals: []ApprovalGiven{}, Required: s.dec.Required(r), MissingGroups: s.dec.MissingGroups(r), Approval: approvalOf(r), Sidecar: r.Sidecar, Statement: r.Statement,
		ClientIdentity: r.ClientIdentity, SidecarReads: r.SidecarReads,
		ReopenedFrom: r.ReopenedFrom, ReopenedBy: r.ReopenedBy, ReopenedAs: r.ReopenedAs, SettledBy: r.SettledBy}
	if r.DecidedBy != "" {
		by := r.DecidedBy
		v.DecidedBy = &by
	}
	for _, a := range r.Approvals {
		g := ApprovalGiven{Approver: a.Approver, Groups: a.Groups, At: a.At.UTC(), Reason: a.Reason}
		if len(a.Groups) > 0 {
			g.Group = a.Groups[0]
		}
		v.Approvals = append(v.Approvals, g)
	}
	return v
}

func second(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Second)
	return &u
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Error is the error body: {"code","message"}.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, Error{Code: code, Message: msg})
}

// fail answers a store error: 404 not_found, or 500 internal (logged; the
// answer does not leak the cause).
func (s *srv) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "not_found", "approval request "+strconv.Quote(r.PathValue("id"))+" not found")
		return
	}
	s.log.Error("control plane store failed", "method", r.Method, "path", r.URL.Path, "err", err)
	writeError(w, http.StatusInternalServerError, "internal", "the Control Plane failed; see its log")
}

// decode reads a JSON object body into v. An empty body is allowed when
// emptyOK. Unknown keys are ignored (a newer Sidecar may send more).
func (s *srv) decode(w http.ResponseWriter, r *http.Request, v any, emptyOK bool) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	if err != nil {
		return fmt.Errorf("body: %w", err)
	}
	if len(body) == 0 && emptyOK {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("body is not the JSON object this call takes: %w", err)
	}
	return nil
}

// badBody answers a body decode refused: 413 too_large when it is longer
// than the limit (MaxBody unless Options.MaxBody says less) (the same request is refused again: the Sidecar reads it as a
// permanent denial, never as an outage), else 400 invalid.
func badBody(w http.ResponseWriter, err error) {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large",
			fmt.Sprintf("the request body is over the %d bytes this Control Plane takes", tooLarge.Limit))
		return
	}
	writeError(w, http.StatusBadRequest, "invalid", err.Error())
}

// listParams parses ?status=&limit= (docs/control-plane-api.md, "List").
func listParams(r *http.Request) (domain.Status, int, error) {
	q := r.URL.Query()
	st := domain.ParseStatus(q.Get("status"))
	if st != "" && !st.IsKnown() {
		return "", 0, fmt.Errorf("status %q is not one of %v", string(st), domain.KnownStatuses)
	}
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 200 {
			return "", 0, fmt.Errorf("limit %q is not an integer from 1 to 200", v)
		}
		limit = n
	}
	return st, limit, nil
}

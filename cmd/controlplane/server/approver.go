package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/hoophq/sidecar/cmd/controlplane/policy"
	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/domain"
)

// maxReason bounds a rejection reason (characters).
const maxReason = 2000

// listReviews: GET /api/reviews?status=&limit= (every Sidecar's).
func (s *srv) listReviews(w http.ResponseWriter, r *http.Request, _ string) {
	st, limit, err := listParams(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid", err.Error())
		return
	}
	recs, err := s.st.List(r.Context(), store.Filter{Status: st, Limit: limit}, s.now())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]Review, len(recs))
	for i, rec := range recs {
		out[i] = s.reviewOf(rec)
	}
	writeJSON(w, http.StatusOK, map[string]any{"reviews": out})
}

// getReview: GET /api/reviews/{id}.
func (s *srv) getReview(w http.ResponseWriter, r *http.Request, _ string) {
	rec, err := s.st.Get(r.Context(), r.PathValue("id"), s.now())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.reviewOf(rec))
}

// Decided is the answer to approve, reject and revoke: the review plus the
// status it moved from. Reopen answers it too: the new request plus the
// refused one's status.
type Decided struct {
	Review
	PreviousStatus domain.Status `json:"previous_status"`
	// AlreadyApproved is true on an approve by an approver who had approved
	// this request already: it counts once, and nothing changed.
	AlreadyApproved bool `json:"already_approved,omitempty"`
}

// decide: POST /api/reviews/{id}/{approve|reject|revoke} with an optional
// {"reason": "…"} (kept for approve and reject), through the approval
// policies (policy.Decider): an approve below the policy's quorum is kept
// and the request stays PENDING. 403 not_eligible or self_approval, 400
// reason_required (policy.Refusal); 409 conflict (with the current review)
// when the state machine does not allow it.
func (s *srv) decide(action string) namedHandler {
	return func(w http.ResponseWriter, r *http.Request, approver string) {
		var b struct {
			Reason string `json:"reason"`
		}
		if err := s.decode(w, r, &b, true); err != nil {
			badBody(w, err)
			return
		}
		b.Reason = strings.TrimSpace(b.Reason)
		if len([]rune(b.Reason)) > maxReason {
			writeError(w, http.StatusBadRequest, "invalid", "reason is longer than 2000 characters")
			return
		}
		res, err := s.dec.Decide(r.Context(), r.PathValue("id"), action, b.Reason, approver, s.now())
		rec, from := res.Record, res.From
		var ce *store.ConflictError
		var refusal *policy.Refusal
		switch {
		case errors.As(err, &refusal):
			s.log.Info("approval decision refused", "id", rec.ID, "action", action, "approver", approver, "code", refusal.Code)
			writeError(w, refusal.Status, refusal.Code, refusal.Message)
		case errors.As(err, &ce):
			writeJSON(w, http.StatusConflict, struct {
				Error
				Review Review `json:"review"`
			}{Error{"conflict", "cannot " + action + " approval " + ce.Current.ID + ": it is " +
				string(ce.Current.Status) + " (" + action + " needs " + string(ce.Want) + ")" + reopenHint(ce.Current)}, s.reviewOf(ce.Current)})
		case err != nil:
			s.fail(w, r, err)
		default:
			s.log.Info("approval decided", "id", rec.ID, "action", action, "from", from, "to", rec.Status, "approver", approver,
				"sidecar", rec.Sidecar, "approvals", len(rec.Approvals), "required", s.dec.Required(rec))
			writeJSON(w, http.StatusOK, Decided{Review: s.reviewOf(rec), PreviousStatus: from,
				AlreadyApproved: action == "approve" && !res.Counted})
		}
	}
}

// reopenHint tells a person who tries to decide a refused request again
// (REJECTED, REVOKED) that reopen is how to ask again, or which request it
// was reopened as already; "" for any other status.
func reopenHint(r store.Record) string {
	switch {
	case r.Status != domain.StatusRejected && r.Status != domain.StatusRevoked:
		return ""
	case r.ReopenedAs != "":
		return "; it was reopened as " + r.ReopenedAs + ": decide that one"
	}
	return "; to ask again, reopen it (controlplane reopen " + r.ID + ")"
}

package server

import (
	"errors"
	"net/http"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
)

// reopen: POST /api/reviews/{id}/reopen, a person asking again for a
// REJECTED or REVOKED request (domain.Reopenable; docs/control-plane-api.md,
// "Reopen"). 201 with the new PENDING request, which names the refused one in
// reopened_from; previous_status is the refused one's status. 409 conflict
// (with the refused request as it is) for any other status or a request
// reopened already. It takes no body; one sent is ignored.
func (s *srv) reopen(w http.ResponseWriter, r *http.Request, approver string) {
	var ignored struct{}
	if err := s.decode(w, r, &ignored, true); err != nil {
		badBody(w, err)
		return
	}
	opened, refused, err := s.st.Reopen(r.Context(), r.PathValue("id"), approver, s.now())
	var ce *store.ConflictError
	switch {
	case errors.As(err, &ce):
		writeJSON(w, http.StatusConflict, struct {
			Error
			Review Review `json:"review"`
		}{Error{"conflict", "cannot reopen approval " + ce.Current.ID + ": " + ce.Why}, s.reviewOf(ce.Current)})
	case err != nil:
		s.fail(w, r, err)
	default:
		s.log.Info("approval reopened", "id", refused.ID, "status", refused.Status, "new_id", opened.ID,
			"approver", approver, "sidecar", opened.Sidecar)
		writeJSON(w, http.StatusCreated, Decided{Review: s.reviewOf(opened), PreviousStatus: refused.Status})
	}
}

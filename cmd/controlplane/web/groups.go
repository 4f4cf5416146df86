package web

import (
	"net/http"
	"slices"

	"github.com/hoophq/sidecar/cmd/controlplane/policy"
)

// sessionKey carries, in a request's context, the approver's OIDC sign-in
// (a session), absent for a token sign-in.
type sessionKey struct{}

// approverOf is the named approver as the policies see it: the config's
// groups plus, after an OIDC sign-in, the groups of the provider's groups
// claim (so the company's directory can grant them).
func (h *handler) approverOf(r *http.Request, name string) policy.Approver {
	a := h.Decider.Set.Approver(name)
	s, _ := r.Context().Value(sessionKey{}).(session)
	groups := slices.Clone(a.Groups)
	for _, g := range s.Groups {
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	a.Groups = groups
	return a
}

package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// tokens maps tokens to names, compared in constant time.
type tokens []tokenEntry

type tokenEntry struct {
	sum  [32]byte
	name string
}

func newTokens(m map[string]string) tokens {
	var t tokens
	for tok, name := range m {
		t = append(t, tokenEntry{sum: sha256.Sum256([]byte(tok)), name: name})
	}
	return t
}

// lookup returns the name the token maps to. Every entry is compared, so the
// time taken does not tell which one matched.
func (t tokens) lookup(tok string) (string, bool) {
	if tok == "" {
		return "", false
	}
	sum := sha256.Sum256([]byte(tok))
	name, ok := "", false
	for _, e := range t {
		if subtle.ConstantTimeCompare(sum[:], e.sum[:]) == 1 {
			name, ok = e.name, true
		}
	}
	return name, ok
}

// bearer returns the token of an "Authorization: Bearer <token>" header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// namedHandler is an API handler that gets the caller's name (the Sidecar's
// or the approver's, from its token).
type namedHandler func(w http.ResponseWriter, r *http.Request, name string)

// sidecar wraps a Sidecar API handler: 401 unless the bearer token is a
// Sidecar's; the handler gets the Sidecar's name.
func (s *srv) sidecar(h namedHandler) http.HandlerFunc {
	return authorized(s.sidecars, "sidecar", "Sidecar", "hoop Sidecar API", h)
}

// approver wraps an approver API handler: 401 unless the bearer token is an
// approver's; the handler gets the approver's name.
func (s *srv) approver(h namedHandler) http.HandlerFunc {
	return authorized(s.approvers, "approver", "approver", "hoop approver API", h)
}

// authorized answers 401 (with a Bearer challenge for realm) unless the
// bearer token is one of known, and logs the caller as "<kind>:<name>".
func authorized(known tokens, kind, who, realm string, h namedHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, ok := known.lookup(bearer(r))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm+`"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "missing or unknown "+who+" token")
			return
		}
		setWho(r, kind+":"+name)
		h(w, r, name)
	}
}

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

type sidecarHandler func(w http.ResponseWriter, r *http.Request, sidecar string)

// sidecar wraps a Sidecar API handler: 401 unless the bearer token is a
// Sidecar's; the handler gets the Sidecar's name.
func (s *srv) sidecar(h sidecarHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, ok := s.sidecars.lookup(bearer(r))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hoop Sidecar API"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "missing or unknown Sidecar token")
			return
		}
		setWho(r, "sidecar:"+name)
		h(w, r, name)
	}
}

// approver wraps an approver API handler: 401 unless the bearer token is an
// approver's; the handler gets the approver's name.
func (s *srv) approver(h sidecarHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, ok := s.approvers.lookup(bearer(r))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hoop approver API"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "missing or unknown approver token")
			return
		}
		setWho(r, "approver:"+name)
		h(w, r, name)
	}
}

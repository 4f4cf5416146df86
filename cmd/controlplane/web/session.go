package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// sealer signs small JSON values into cookie values ("<payload>.<mac>",
// base64url, HMAC-SHA256) and checks them back. The key is derived from the
// OIDC client secret, so every replica with the same config accepts the
// others' cookies and a restart does not sign anyone out.
type sealer struct{ key []byte }

func newSealer(secret string) sealer {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("hoop controlplane web cookies v1"))
	return sealer{key: m.Sum(nil)}
}

// seal returns v (with purpose, so a value sealed for one cookie cannot be
// used as another) as a cookie value.
func (s sealer) seal(purpose string, v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	p := base64.RawURLEncoding.EncodeToString(b)
	return p + "." + base64.RawURLEncoding.EncodeToString(s.mac(purpose, p)), nil
}

// open checks a value from seal with the same purpose and decodes it into v.
func (s sealer) open(purpose, value string, v any) error {
	p, m, ok := strings.Cut(value, ".")
	if !ok {
		return errors.New("not a sealed value")
	}
	got, err := base64.RawURLEncoding.DecodeString(m)
	if err != nil || !hmac.Equal(got, s.mac(purpose, p)) {
		return errors.New("bad signature")
	}
	b, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func (s sealer) mac(purpose, payload string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(purpose + "\x00" + payload))
	return m.Sum(nil)
}

// session is who signed in with the identity provider, until Expires.
type session struct {
	Name    string    `json:"n"`
	Groups  []string  `json:"g,omitempty"`
	Expires time.Time `json:"e"`
}

// sessionCookie is the signed-in approver's cookie; loginCookie holds one
// sign-in's state, nonce and PKCE verifier until the provider sends the
// browser back.
const (
	sessionCookie = "hoop_session"
	loginCookie   = "hoop_oidc_login"
)

// sessionOf returns the request's valid, unexpired session, if any.
func (o *oidcLogin) sessionOf(r *http.Request, now time.Time) (session, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return session{}, false
	}
	var s session
	if err := o.seal.open(sessionCookie, c.Value, &s); err != nil || s.Name == "" || !now.Before(s.Expires) {
		return session{}, false
	}
	return s, true
}

// setCookie writes name=value for path, HttpOnly and SameSite=Lax (the
// provider's redirect back is a top-level GET, which Lax lets through),
// Secure when the page is served over https; maxAge 0 deletes it.
func (o *oidcLogin) setCookie(w http.ResponseWriter, name, value, path string, maxAge time.Duration) {
	c := &http.Cookie{Name: name, Value: value, Path: path, HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: strings.HasPrefix(o.cfg.RedirectURL, "https://"), MaxAge: int(maxAge / time.Second)}
	if maxAge <= 0 {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

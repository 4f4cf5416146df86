package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// OIDC configures signing in to the page with an OpenID provider: the
// authorization code flow (OpenID Connect Core 1.0 §3.1) with PKCE S256
// (RFC 7636).
type OIDC struct {
	// Issuer is the provider's issuer URL (discovery at
	// <Issuer>/.well-known/openid-configuration).
	Issuer string
	// ClientID and ClientSecret are this Control Plane's client at the provider.
	ClientID, ClientSecret string
	// RedirectURL is <public_url>/ui/oidc/callback, registered at the provider.
	RedirectURL string
	// GroupsClaim names the claim (a list of strings, or one string) whose
	// values are policy groups; "" reads none.
	GroupsClaim string
	// Approver maps the provider's verified claims to an approver's name:
	// ok false means the person is no approver.
	Approver func(email string, emailVerified bool, subject string) (name string, ok bool)
	// SessionTTL is how long a sign-in lasts; 0 means 8 hours.
	SessionTTL time.Duration
}

// CallbackPath is where the provider sends the browser back (RedirectURL's path).
const CallbackPath = "/ui/oidc/callback"

// oidcLogin runs the sign-in. The provider's discovery document is read on
// the first sign-in (and again after a failure), so the Control Plane
// starts while the provider is down.
type oidcLogin struct {
	cfg  OIDC
	seal sealer
	now  func() time.Time
	log  *slog.Logger

	mu       sync.Mutex
	provider *oidc.Provider
}

func newOIDCLogin(cfg OIDC, now func() time.Time, log *slog.Logger) *oidcLogin {
	if cfg.SessionTTL == 0 {
		cfg.SessionTTL = 8 * time.Hour
	}
	return &oidcLogin{cfg: cfg, seal: newSealer(cfg.ClientSecret), now: now, log: log}
}

func (o *oidcLogin) discover(ctx context.Context) (*oidc.Provider, oauth2.Config, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.provider == nil {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		p, err := oidc.NewProvider(ctx, o.cfg.Issuer)
		if err != nil {
			return nil, oauth2.Config{}, err
		}
		o.provider = p
	}
	return o.provider, oauth2.Config{ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, RedirectURL: o.cfg.RedirectURL,
		Endpoint: o.provider.Endpoint(), Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}, nil
}

// pending is one sign-in in flight, kept in the login cookie.
type pending struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
}

// loginTTL bounds the time between leaving for the provider and coming back.
const loginTTL = 10 * time.Minute

// login answers GET /ui/login: a new state, nonce and PKCE verifier in the
// login cookie, and a redirect (302) to the provider's authorization endpoint.
func (o *oidcLogin) login(w http.ResponseWriter, r *http.Request) {
	_, oc, err := o.discover(r.Context())
	if err != nil {
		o.failed(w, http.StatusBadGateway, "the identity provider "+o.cfg.Issuer+" cannot be reached: "+err.Error())
		return
	}
	p := pending{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier()}
	v, err := o.seal.seal(loginCookie, p)
	if err != nil {
		o.failed(w, http.StatusInternalServerError, err.Error())
		return
	}
	o.setCookie(w, loginCookie, v, CallbackPath, loginTTL)
	http.Redirect(w, r, oc.AuthCodeURL(p.State, oidc.Nonce(p.Nonce), oauth2.S256ChallengeOption(p.Verifier)), http.StatusFound)
}

// callback answers GET /ui/oidc/callback?code=&state=: it checks the state
// against the login cookie, redeems the code with the PKCE verifier,
// verifies the ID token (signature, issuer, audience, expiry, nonce), reads
// the email and groups (from the ID token, else the UserInfo endpoint),
// maps them to an approver, sets the session cookie and redirects to "/".
// A person who is no approver gets 403; a failed exchange 502.
func (o *oidcLogin) callback(w http.ResponseWriter, r *http.Request) {
	c, err := r.Cookie(loginCookie)
	var p pending
	if err != nil || o.seal.open(loginCookie, c.Value, &p) != nil {
		o.failed(w, http.StatusBadRequest, "this sign-in was not started here or took longer than 10 minutes")
		return
	}
	o.setCookie(w, loginCookie, "", CallbackPath, 0)
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		o.failed(w, http.StatusUnauthorized, "the identity provider refused: "+e+" "+q.Get("error_description"))
		return
	}
	if q.Get("state") == "" || q.Get("state") != p.State {
		o.failed(w, http.StatusBadRequest, "the sign-in's state does not match; start again")
		return
	}
	provider, oc, err := o.discover(r.Context())
	if err != nil {
		o.failed(w, http.StatusBadGateway, "the identity provider cannot be reached: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	tok, err := oc.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(p.Verifier))
	if err != nil {
		o.failed(w, http.StatusBadGateway, "the identity provider did not redeem the code: "+err.Error())
		return
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := provider.Verifier(&oidc.Config{ClientID: o.cfg.ClientID, Now: o.now}).Verify(ctx, raw)
	if err != nil {
		o.failed(w, http.StatusBadGateway, "the ID token is not valid: "+err.Error())
		return
	}
	if idt.Nonce != p.Nonce {
		o.failed(w, http.StatusBadRequest, "the ID token's nonce does not match; start again")
		return
	}
	cl := claims{}
	if err := idt.Claims(&cl); err != nil {
		o.failed(w, http.StatusBadGateway, "the ID token's claims: "+err.Error())
		return
	}
	if _, has := cl["email"]; !has || (o.cfg.GroupsClaim != "" && cl[o.cfg.GroupsClaim] == nil) {
		// Many providers put these in the UserInfo response only (OpenID Connect Core 1.0 §5.3).
		if ui, err := provider.UserInfo(ctx, oauth2.StaticTokenSource(tok)); err == nil {
			more := claims{}
			if ui.Subject == idt.Subject && ui.Claims(&more) == nil {
				for k, v := range more {
					if _, has := cl[k]; !has {
						cl[k] = v
					}
				}
			}
		}
	}
	email, verified := cl.email()
	name, ok := o.cfg.Approver(email, verified, idt.Subject)
	if !ok {
		who := email
		if who == "" {
			who = "subject " + idt.Subject
		}
		o.failed(w, http.StatusForbidden, who+" signed in at the identity provider, but is no approver here: "+
			"give an approver of the Control Plane's config this email (approvers[].email) or this subject in its identities")
		return
	}
	s := session{Name: name, Groups: cl.groups(o.cfg.GroupsClaim), Expires: o.now().Add(o.cfg.SessionTTL).UTC().Truncate(time.Second)}
	v, err := o.seal.seal(sessionCookie, s)
	if err != nil {
		o.failed(w, http.StatusInternalServerError, err.Error())
		return
	}
	o.setCookie(w, sessionCookie, v, "/", o.cfg.SessionTTL)
	o.log.Info("approver signed in", "approver", name, "via", "oidc", "subject", idt.Subject, "groups", s.Groups)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// logout answers POST /ui/logout: the session cookie is deleted (the
// provider's own session is left alone).
func (o *oidcLogin) logout(w http.ResponseWriter, r *http.Request) {
	o.setCookie(w, sessionCookie, "", "/", 0)
	http.Redirect(w, r, "/ui/signed-out", http.StatusSeeOther)
}

// claims are an ID token's or UserInfo response's claims.
type claims map[string]any

// email returns the email claim and whether email_verified is not false
// (a provider that leaves email_verified out vouches for the address).
func (c claims) email() (string, bool) {
	e, _ := c["email"].(string)
	v, has := c["email_verified"].(bool)
	return strings.TrimSpace(e), !has || v
}

// groups returns the named claim as a list of group names: a JSON array of
// strings or one string (space- or comma-separated); nil when absent.
func (c claims) groups(name string) []string {
	if name == "" {
		return nil
	}
	var out []string
	switch v := c[name].(type) {
	case []any:
		for _, g := range v {
			if s, ok := g.(string); ok && strings.TrimSpace(s) != "" {
				out = append(out, strings.TrimSpace(s))
			}
		}
	case string:
		out = strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' })
	}
	return out
}

func random() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

var failPage = template.Must(template.New("fail").Parse(`<!doctype html><html lang="en"><meta charset="utf-8">` +
	`<meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign-in failed</title>` +
	`<main><h1>Sign-in failed</h1><p role="alert">{{.}}</p>` +
	`<p><a href="/ui/login">Sign in again</a></p></main></html>`))

// failed shows why a sign-in failed, with a link to try again, and logs it
// (the provider's refusals and outages are the operator's to see).
func (o *oidcLogin) failed(w http.ResponseWriter, code int, msg string) {
	o.log.Warn("web: OIDC sign-in failed", "status", code, "why", msg)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_ = failPage.Execute(w, msg)
}

// signedOut answers GET /ui/signed-out, where a sign-out lands (not "/",
// which would sign the person in again at once).
func signedOut(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = outPage.Execute(w, nil)
}

var outPage = template.Must(template.New("out").Parse(`<!doctype html><html lang="en"><meta charset="utf-8">` +
	`<meta name="viewport" content="width=device-width, initial-scale=1"><title>Signed out</title>` +
	`<main><h1>Signed out</h1><p><a href="/ui/login">Sign in again</a></p></main></html>`))

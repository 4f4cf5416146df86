package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/policy"
	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/cmd/controlplane/store/storetest"
	"github.com/hoophq/sidecar/domain"
)

var now0 = time.Date(2026, 12, 7, 11, 0, 0, 0, time.UTC)

// oidcPage is the page with OIDC on (the provider is never reached: these
// tests bring their own session cookies), the approver carol in no group,
// and rule db-* decided by the group dba only.
func oidcPage(t *testing.T) (http.Handler, *oidcLogin, store.Store) {
	st := storetest.Open(t, "sqlite")
	cfg := OIDC{Issuer: "http://127.0.0.1:1/", ClientID: "cp", ClientSecret: "s3cret", RedirectURL: "http://cp.test" + CallbackPath,
		Approver: func(string, bool, string) (string, bool) { return "", false }}
	h := New(Options{Store: st, Now: func() time.Time { return now0 }, OIDC: &cfg,
		Authenticate: func(tok string) (string, bool) { return "carol", tok == "carol-token" },
		Decider: policy.Decider{Set: policy.Set{
			Policies:  []policy.Policy{{Rule: "db-*", Groups: []string{"dba"}, MinApprovals: 1}},
			Approvers: map[string]policy.Approver{"carol": {Name: "carol"}, "dan": {Name: "dan", Groups: []string{"dba"}}},
		}}})
	return h, h.(*handler).login, st
}

func get(t *testing.T, h http.Handler, path string, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("GET", "http://cp.test"+path, nil)
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func sessionFor(t *testing.T, l *oidcLogin, s session) *http.Cookie {
	t.Helper()
	v, err := l.seal.seal(sessionCookie, s)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Cookie{Name: sessionCookie, Value: v}
}

// Without a session the page sends the browser to the sign-in; a valid
// session shows who signed in and a Sign out button; a tampered, expired
// or a removed approver's session is no session.
func TestOIDCSessionCookie(t *testing.T) {
	h, l, _ := oidcPage(t)
	if w := get(t, h, "/"); w.Code != http.StatusFound || w.Header().Get("Location") != "/ui/login" {
		t.Fatalf("no session: %d %v, want a redirect to /ui/login", w.Code, w.Header())
	}
	good := sessionFor(t, l, session{Name: "carol", Expires: now0.Add(time.Hour)})
	if w := get(t, h, "/", good); w.Code != 200 || !strings.Contains(w.Body.String(), "Signed in as <strong>carol</strong>") ||
		!strings.Contains(w.Body.String(), `action="/ui/logout"`) {
		t.Fatalf("session: %d\n%s", w.Code, w.Body)
	}
	// Carol's signature on a payload that names dan (in group dba).
	danPayload, _, _ := strings.Cut(sessionFor(t, l, session{Name: "dan", Expires: now0.Add(time.Hour)}).Value, ".")
	_, carolMAC, _ := strings.Cut(good.Value, ".")
	loginAsSession, _ := l.seal.seal(loginCookie, session{Name: "carol", Expires: now0.Add(time.Hour)})
	for name, c := range map[string]*http.Cookie{
		"tampered":         {Name: sessionCookie, Value: danPayload + "." + carolMAC},
		"expired":          sessionFor(t, l, session{Name: "carol", Expires: now0}),
		"removed":          sessionFor(t, l, session{Name: "mallory", Expires: now0.Add(time.Hour)}),
		"other secret":     sessionFor(t, &oidcLogin{seal: newSealer("other")}, session{Name: "carol", Expires: now0.Add(time.Hour)}),
		"login as session": {Name: sessionCookie, Value: loginAsSession},
	} {
		if w := get(t, h, "/ui/pending", c); w.Code != http.StatusUnauthorized {
			t.Errorf("%s session: %d, want 401", name, w.Code)
		}
	}
	// The token still signs in, and no Sign out is offered for it.
	r := httptest.NewRequest("GET", "http://cp.test/", nil)
	r.SetBasicAuth("x", "carol-token")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 200 || strings.Contains(w.Body.String(), "/ui/logout") {
		t.Fatalf("token sign-in with OIDC on: %d\n%s", w.Code, w.Body)
	}
}

// The groups claim of the session makes carol eligible under a dba-only
// policy; the same carol without it is refused.
func TestOIDCGroupsClaimCountsInThePolicy(t *testing.T) {
	h, l, st := oidcPage(t)
	file := func(fp string) string {
		rec, _, err := st.File(context.Background(), "s", store.FileInput{Fingerprint: fp, ApprovalRule: "db-destructive",
			Statement: "DROP TABLE t", Protocol: "postgres", ClientIdentity: "agent"}, now0)
		if err != nil {
			t.Fatal(err)
		}
		return rec.ID
	}
	post := func(id string, c *http.Cookie) int {
		r := httptest.NewRequest("POST", "http://cp.test/ui/reviews/"+id+"/approve", strings.NewReader(url.Values{}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.AddCookie(c)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	a, b := file("v1:a"), file("v1:b")
	if code := post(a, sessionFor(t, l, session{Name: "carol", Expires: now0.Add(time.Hour)})); code != http.StatusForbidden {
		t.Errorf("carol without the claim: %d, want 403", code)
	}
	if code := post(b, sessionFor(t, l, session{Name: "carol", Groups: []string{"dba"}, Expires: now0.Add(time.Hour)})); code != http.StatusSeeOther {
		t.Fatalf("carol with groups [dba]: %d, want 303", code)
	}
	rec, err := st.Get(context.Background(), b, now0)
	if err != nil || rec.Status != domain.StatusApproved || rec.DecidedBy != "carol" || !slices.Equal(rec.Approvals[0].Groups, []string{"dba"}) {
		t.Fatalf("after carol's approval: %+v %v", rec, err)
	}
}

// A callback that this browser did not start, or whose state differs, is
// refused before the provider is asked anything.
func TestOIDCCallbackChecksTheState(t *testing.T) {
	h, l, _ := oidcPage(t)
	if w := get(t, h, CallbackPath+"?code=c&state=s"); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "not started here") {
		t.Fatalf("no login cookie: %d\n%s", w.Code, w.Body)
	}
	v, _ := l.seal.seal(loginCookie, pending{State: "right", Nonce: "n", Verifier: "v"})
	if w := get(t, h, CallbackPath+"?code=c&state=wrong", &http.Cookie{Name: loginCookie, Value: v}); w.Code != http.StatusBadRequest ||
		!strings.Contains(w.Body.String(), "state does not match") {
		t.Fatalf("wrong state: %d\n%s", w.Code, w.Body)
	}
}

func TestGroupsClaimShapes(t *testing.T) {
	c := claims{"groups": []any{"dba", " payments ", 7, ""}, "roles": "a, b c", "email": "A@x.io", "email_verified": false}
	if g := c.groups("groups"); !slices.Equal(g, []string{"dba", "payments"}) {
		t.Errorf("list: %q", g)
	}
	if g := c.groups("roles"); !slices.Equal(g, []string{"a", "b", "c"}) {
		t.Errorf("string: %q", g)
	}
	if g := c.groups("missing"); g != nil || c.groups("") != nil {
		t.Errorf("absent: %q", g)
	}
	if e, v := c.email(); e != "A@x.io" || v {
		t.Errorf("email %q verified %v", e, v)
	}
}

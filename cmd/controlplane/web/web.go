package web

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/policy"
	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/domain"
)

//go:embed page.html page.css live.js
var files embed.FS

// asset serves an embedded file (the stylesheet or live.js).
func asset(name, contentType string) authed {
	b, err := files.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return func(w http.ResponseWriter, _ *http.Request, _ string) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(b)
	}
}

var page = template.Must(template.New("page.html").Funcs(template.FuncMap{
	// when renders a time.Time or *time.Time as RFC 3339 UTC ("" for nil).
	"when": func(v any) string {
		switch t := v.(type) {
		case time.Time:
			return t.UTC().Format(time.RFC3339)
		case *time.Time:
			if t != nil {
				return t.UTC().Format(time.RFC3339)
			}
		}
		return ""
	},
	// human renders a *time.Time or time.Time for people: "2026-09-29 14:02 UTC".
	"human": func(v any) string {
		switch t := v.(type) {
		case time.Time:
			return t.UTC().Format("2006-01-02 15:04 UTC")
		case *time.Time:
			if t != nil {
				return t.UTC().Format("2006-01-02 15:04 UTC")
			}
		}
		return ""
	},
}).ParseFS(files, "page.html"))

// pageLimit is how many requests the page lists.
const pageLimit = 200

// Options configure New.
type Options struct {
	// Store keeps the approval requests.
	Store store.Store
	// Decider applies the approval policies to the buttons' decisions; its
	// zero value (Store set from Store) is policy.Default for every request.
	Decider policy.Decider
	// Authenticate maps an approver token to the approver's name.
	Authenticate func(token string) (name string, ok bool)
	// Signed, when set, is told who signed in for each request (the server
	// uses it to name the approver in its request log).
	Signed func(r *http.Request, approver string)
	// Logger receives decisions and failures; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OIDC, when set, lets approvers sign in with an OpenID provider
	// (oidc.go) besides the token.
	OIDC *OIDC
}

type handler struct {
	Options
	mux   *http.ServeMux
	login *oidcLogin // nil without OIDC
}

// New returns the page's handler for "GET /", "GET /ui/pending" (live.js's
// poll), "GET /ui/page.css", "GET /ui/live.js" and "POST
// /ui/reviews/{id}/{action}"; every one needs an approver token.
func New(o Options) http.Handler {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Decider.Store == nil {
		o.Decider.Store = o.Store
	}
	h := &handler{Options: o, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /{$}", h.auth(h.list))
	h.mux.HandleFunc("GET /ui/pending", h.auth(h.pending))
	h.mux.HandleFunc("GET /ui/page.css", h.auth(asset("page.css", "text/css; charset=utf-8")))
	h.mux.HandleFunc("GET /ui/live.js", h.auth(asset("live.js", "text/javascript; charset=utf-8")))
	h.mux.HandleFunc("POST /ui/reviews/{id}/{action}", h.auth(h.act))
	if o.OIDC != nil {
		h.login = newOIDCLogin(*o.OIDC, o.Now, o.Logger)
		h.mux.HandleFunc("GET /ui/login", h.login.login)
		h.mux.HandleFunc("GET "+CallbackPath, h.login.callback)
		h.mux.HandleFunc("POST /ui/logout", func(w http.ResponseWriter, r *http.Request) {
			if err := crossOrigin.Check(r); err != nil {
				http.Error(w, "cross-origin form refused", http.StatusForbidden)
				return
			}
			h.login.logout(w, r)
		})
		h.mux.HandleFunc("GET /ui/signed-out", signedOut)
	}
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	h.mux.ServeHTTP(w, r)
}

type authed func(w http.ResponseWriter, r *http.Request, approver string)

// auth takes the approver token as the Basic auth password (or a Bearer
// token) or, with OIDC, the session cookie of a sign-in with the identity
// provider, whose groups claim then travels in the request's context
// (approverOf). Without either, GET / with OIDC redirects to /ui/login;
// everything else is 401.
func (h *handler) auth(next authed) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, tok, ok := r.BasicAuth()
		if !ok {
			if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
				tok = strings.TrimSpace(a[7:])
			}
		}
		name, ok := h.Authenticate(tok)
		if !ok && tok == "" && h.login != nil {
			var s session
			if s, ok = h.login.sessionOf(r, h.Now()); ok {
				// An approver taken out of the config is signed out at once.
				_, ok = h.Decider.Set.Approvers[s.Name]
			}
			if ok {
				name = s.Name
				r = r.WithContext(context.WithValue(r.Context(), sessionKey{}, s))
			}
		}
		if !ok && h.login != nil {
			if r.Method == http.MethodGet && r.URL.Path == "/" {
				http.Redirect(w, r, "/ui/login", http.StatusFound)
				return
			}
			http.Error(w, "sign in at /ui/login, or with an approver token as the password (the user name is ignored)", http.StatusUnauthorized)
			return
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="hoop Control Plane approvers", charset="UTF-8"`)
			http.Error(w, "sign in with an approver token as the password (the user name is ignored)", http.StatusUnauthorized)
			return
		}
		if h.Signed != nil {
			h.Signed(r, name)
		}
		next(w, r, name)
	}
}

func (h *handler) list(w http.ResponseWriter, r *http.Request, approver string) {
	st := domain.ParseStatus(r.URL.Query().Get("status"))
	if st != "" && !st.IsKnown() {
		st = ""
	}
	var notice string
	if done, id := r.URL.Query().Get("done"), r.URL.Query().Get("id"); done != "" {
		if _, ok := pastTense[done]; ok {
			notice = pastTense[done] + " " + id
			if as := r.URL.Query().Get("as"); done == "reopen" && as != "" {
				notice += " as " + as + " (PENDING)"
			}
		}
	}
	h.render(w, r.Context(), http.StatusOK, approver, st, notice, "")
}

// pending answers GET /ui/pending: {"ids": [...]} of the PENDING requests,
// newest first (at most pageLimit), for live.js.
func (h *handler) pending(w http.ResponseWriter, r *http.Request, _ string) {
	recs, err := h.Store.List(r.Context(), store.Filter{Status: domain.StatusPending, Limit: pageLimit}, h.Now())
	if err != nil {
		h.Logger.Error("web: list failed", "err", err)
		http.Error(w, "the store failed", http.StatusInternalServerError)
		return
	}
	ids := make([]string, len(recs))
	for i, rec := range recs {
		ids[i] = rec.ID
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string][]string{"ids": ids})
}

var pastTense = map[string]string{"vote": "recorded your approval of", "approve": "approved", "reject": "rejected", "revoke": "revoked", "reopen": "reopened"}

// crossOrigin refuses what a browser marks as another site's request
// (Sec-Fetch-Site cross-site or same-site), also when it sends no Origin.
var crossOrigin = http.NewCrossOriginProtection()

func (h *handler) act(w http.ResponseWriter, r *http.Request, approver string) {
	if err := crossOrigin.Check(r); err != nil {
		h.Logger.Warn("web: cross-origin form refused", "sec_fetch_site", r.Header.Get("Sec-Fetch-Site"), "host", r.Host)
		http.Error(w, "cross-origin form refused", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host) {
			h.Logger.Warn("web: cross-origin form refused", "origin", o, "host", r.Host)
			http.Error(w, "cross-origin form refused", http.StatusForbidden)
			return
		}
	}
	action, id := r.PathValue("action"), r.PathValue("id")
	if _, ok := store.Actions[action]; !ok && action != "reopen" {
		http.NotFound(w, r)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	if action == "reopen" {
		h.reopen(w, r, approver, id)
		return
	}
	reason := strings.TrimSpace(r.PostForm.Get("reason"))
	if len([]rune(reason)) > 2000 {
		reason = string([]rune(reason)[:2000])
	}
	res, err := h.Decider.DecideAs(r.Context(), id, action, reason, h.approverOf(r, approver), h.Now())
	rec, from := res.Record, res.From
	var ce *store.ConflictError
	var refusal *policy.Refusal
	switch {
	case errors.As(err, &refusal):
		h.fail(w, r, approver, refusal.Status, refusal.Message)
		return
	case errors.As(err, &ce):
		h.fail(w, r, approver, http.StatusConflict, "cannot "+action+" "+id+": it is "+string(ce.Current.Status)+" ("+action+" needs "+string(ce.Want)+")")
		return
	case errors.Is(err, store.ErrNotFound):
		h.fail(w, r, approver, http.StatusNotFound, "no approval request "+id)
		return
	case err != nil:
		h.Logger.Error("web: decide failed", "id", id, "err", err)
		h.fail(w, r, approver, http.StatusInternalServerError, "the store failed; see the Control Plane's log")
		return
	}
	h.Logger.Info("approval decided", "id", rec.ID, "action", action, "from", from, "to", rec.Status, "approver", approver,
		"sidecar", rec.Sidecar, "approvals", len(rec.Approvals), "required", h.Decider.Required(rec), "via", "web")
	done := action
	if action == "approve" && rec.Status == domain.StatusPending {
		done = "vote" // below the policy's quorum: kept, still PENDING
	}
	http.Redirect(w, r, "/?done="+url.QueryEscape(done)+"&id="+url.QueryEscape(rec.ID), http.StatusSeeOther)
}

// reopen is the Reopen button of a REJECTED or REVOKED row: a person asking
// again (store.Reopen). It redirects to the list with a notice naming the new
// PENDING request, or shows the list with the reason it was refused.
func (h *handler) reopen(w http.ResponseWriter, r *http.Request, approver, id string) {
	opened, refused, err := h.Store.Reopen(r.Context(), id, approver, h.Now())
	var ce *store.ConflictError
	switch {
	case errors.As(err, &ce):
		h.fail(w, r, approver, http.StatusConflict, "cannot reopen "+id+": "+ce.Why)
		return
	case errors.Is(err, store.ErrNotFound):
		h.fail(w, r, approver, http.StatusNotFound, "no approval request "+id)
		return
	case err != nil:
		h.Logger.Error("web: reopen failed", "id", id, "err", err)
		h.fail(w, r, approver, http.StatusInternalServerError, "the store failed; see the Control Plane's log")
		return
	}
	h.Logger.Info("approval reopened", "id", refused.ID, "status", refused.Status, "new_id", opened.ID,
		"approver", approver, "sidecar", opened.Sidecar, "via", "web")
	http.Redirect(w, r, "/?done=reopen&id="+url.QueryEscape(refused.ID)+"&as="+url.QueryEscape(opened.ID), http.StatusSeeOther)
}

// fail shows the list again with an error on top.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, approver string, code int, msg string) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	h.render(w, ctx, code, approver, "", "", msg)
}

// render shows the requests of status st ("" for all), newest first, with a
// tab and a count per status.
func (h *handler) render(w http.ResponseWriter, ctx context.Context, code int, approver string, st domain.Status, notice, errMsg string) {
	now := h.Now()
	_, oidcSession := ctx.Value(sessionKey{}).(session)
	v := view{Approver: approver, SignOut: oidcSession, Status: string(st), Self: selfURL(string(st)), Notice: notice, Error: errMsg}
	failed := false
	count := func(s domain.Status) ([]store.Record, string) {
		recs, err := h.Store.List(ctx, store.Filter{Status: s, Limit: pageLimit}, now)
		if err != nil {
			h.Logger.Error("web: list failed", "status", s, "err", err)
			failed = true
		}
		n := fmt.Sprint(len(recs))
		if len(recs) == pageLimit {
			n += "+"
		}
		return recs, n
	}
	all, n := count("")
	v.Tabs = append(v.Tabs, tab{Label: "All", Href: "/", Count: n, Current: st == ""})
	for _, s := range domain.KnownStatuses {
		recs, n := count(s)
		v.Tabs = append(v.Tabs, tab{Label: statusLabels[s], Href: selfURL(string(s)), Count: n, Current: st == s})
		if s == st {
			all = recs
		}
		if s == domain.StatusPending {
			v.Pending = len(recs)
			ids := make([]string, len(recs))
			for i, rec := range recs {
				ids[i] = rec.ID
			}
			v.PendingIDs = strings.Join(ids, ",")
		}
	}
	if failed && v.Error == "" {
		v.Error = "the store failed; see the Control Plane's log"
	}
	for _, rec := range all {
		c := newCard(rec, now)
		c.Required, c.MissingGroups = h.Decider.Required(rec), h.Decider.MissingGroups(rec)
		c.ApproveReason, c.RejectReason = h.Decider.ReasonOn(rec, "approve"), h.Decider.ReasonOn(rec, "reject")
		v.Cards = append(v.Cards, c)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	if err := page.Execute(w, v); err != nil {
		h.Logger.Error("web: render failed", "err", err)
	}
}

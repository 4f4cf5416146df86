package server

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/policy"
	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/cmd/controlplane/web"
)

// APIVersion is the contract version this Control Plane implements.
const APIVersion = 1

// Options configure New.
type Options struct {
	// Store keeps the approval requests (required).
	Store store.Store
	// Sidecars maps each Sidecar token to the Sidecar's name.
	Sidecars map[string]string
	// Approvers maps each approver token to the approver's name.
	Approvers map[string]string
	// Version is this Control Plane's version, reported by /api/sidecars/info.
	Version string
	// APIVersion is what X-Hoop-Api-Version and /api/sidecars/info say;
	// 0 means APIVersion (1). A testing aid: set a lower one to play an
	// older Control Plane.
	APIVersion int
	// OmitAPIVersion leaves the X-Hoop-Api-Version header out (a Control
	// Plane older than the contract). A testing aid.
	OmitAPIVersion bool
	// Logger receives one line per request and every internal error.
	// Nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxBody is the largest request body taken, in bytes; 0 means MaxBody
	// (1 MiB). A testing aid: the Pact's small-body state plays a Control
	// Plane with a lower limit.
	MaxBody int64
	// Policies say who may decide which request and how many approvals
	// it needs; the zero Set is policy.Default for every request (any
	// approver, one approval).
	Policies policy.Set
	// Requested, when set, is told of every newly filed approval request (not
	// of a reused one) after it is stored. It must return at once: the
	// Sidecar's filing waits for it (notify.Notifier.Requested does: it
	// wakes the delivery of the notification the filing already stored).
	Requested func(store.Record)
	// Slack, when set, serves POST /slack/interactivity (slackapp.App): it
	// checks Slack's signature itself, so no token is asked for.
	Slack http.Handler
	// OIDC, when set, lets approvers sign in to the web page with an
	// OpenID provider (package web); the API keeps its tokens.
	OIDC *web.OIDC
}

type srv struct {
	st        store.Store
	sidecars  tokens
	approvers tokens
	version   string
	apiVer    int
	log       *slog.Logger
	now       func() time.Time
	requested func(store.Record)
	maxBody   int64
	dec       policy.Decider
}

// New returns the Control Plane's HTTP handler. Unknown paths answer the
// standard library's plain-text 404 (and a wrong method its 405), which a
// Sidecar reads as "this Control Plane is older" (docs/control-plane-api.md).
func New(o Options) http.Handler {
	s := &srv{st: o.Store, sidecars: newTokens(o.Sidecars), approvers: newTokens(o.Approvers),
		version: o.Version, apiVer: o.APIVersion, log: o.Logger, now: o.Now, requested: o.Requested, maxBody: o.MaxBody,
		dec: policy.Decider{Store: o.Store, Set: o.Policies}}
	if s.maxBody <= 0 {
		s.maxBody = MaxBody
	}
	if s.apiVer == 0 {
		s.apiVer = APIVersion
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.version == "" {
		s.version = "dev"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)

	mux.HandleFunc("GET /api/sidecars/info", s.sidecar(s.info))
	mux.HandleFunc("POST /api/sidecars/reviews", s.sidecar(s.file))
	mux.HandleFunc("GET /api/sidecars/reviews", s.sidecar(s.list))
	mux.HandleFunc("GET /api/sidecars/reviews/{id}", s.sidecar(s.read))
	mux.HandleFunc("POST /api/sidecars/reviews/{id}/claim", s.sidecar(s.claim))
	mux.HandleFunc("POST /api/sidecars/reviews/{id}/settle", s.sidecar(s.settle))
	mux.HandleFunc("POST /api/sidecars/reviews/{id}/renew", s.sidecar(s.renew))

	mux.HandleFunc("GET /api/reviews", s.approver(s.listReviews))
	mux.HandleFunc("GET /api/reviews/{id}", s.approver(s.getReview))
	mux.HandleFunc("POST /api/reviews/{id}/approve", s.approver(s.decide("approve")))
	mux.HandleFunc("POST /api/reviews/{id}/reject", s.approver(s.decide("reject")))
	mux.HandleFunc("POST /api/reviews/{id}/revoke", s.approver(s.decide("revoke")))
	mux.HandleFunc("POST /api/reviews/{id}/reopen", s.approver(s.reopen))

	if o.Slack != nil {
		mux.Handle("POST /slack/interactivity", o.Slack)
	}

	page := web.New(web.Options{Store: o.Store, Decider: s.dec, Authenticate: s.approvers.lookup, Logger: s.log, Now: s.now, OIDC: o.OIDC,
		Signed: func(r *http.Request, name string) { setWho(r, "approver:"+name+" (web)") }})
	mux.Handle("GET /{$}", page)
	mux.Handle("POST /ui/", page)
	mux.Handle("GET /ui/", page)

	var h http.Handler = mux
	if !o.OmitAPIVersion {
		h = withHeader(h, "X-Hoop-Api-Version", strconv.Itoa(s.apiVer))
	}
	return logRequests(s.log, h)
}

func withHeader(next http.Handler, k, v string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(k, v)
		next.ServeHTTP(w, r)
	})
}

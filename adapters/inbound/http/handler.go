package httplistener

import (
	"bytes"
	"errors"
	"io"
	"log"
	"log/slog"
	"net/http"
	"strings"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
)

// MaxHeldBody is the largest request body (bytes) of a request that an
// approval rule covers. Such a body is part of the statement, so the listener
// reads it whole before deciding; a larger one is refused with 413. Bodies
// of requests no approval rule covers stream to the upstream unread.
const MaxHeldBody = 8 << 20

// handler serves one listener.
type handler struct {
	p   *Protocol
	l   *app.Listener
	log *slog.Logger
	// errLog is log at warn level for the http packages' own error lines.
	errLog *log.Logger
	// routes caches the upstream URL and transport of the current settings.
	routes routes
}

// ServeHTTP decides one request:
//
//  1. Under /.well-known/hoop/ in any reading (reserved.go, prefix.go):
//     answered by the Sidecar when it is the first request on its
//     connection (statuspath.go), else the connection is closed unanswered.
//     Never forwarded.
//  2. Otherwise the gate decides the statement (method, path, query,
//     Content-Type, body) and the request is forwarded (proxy.go) or denied
//     with a 403 (denial.go). In wait mode the gate holds the request until
//     a person decides. The upstream's answer is masked by the listener's
//     masking rules that apply to the statement (proxymask.go).
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := requestNumber(r)
	s := h.l.Settings()
	if res, p := reserve(r, h.upstreamPath(s)); res != notReserved {
		if n > 1 {
			h.hangUp(w, r)
			return
		}
		h.serveReserved(w, r, res, p)
		return
	}
	if r.Method == http.MethodConnect {
		// A tunnel would carry requests the gate never sees.
		w.Header().Set("Allow", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE")
		w.Header().Set("Connection", "close")
		writeText(w, http.StatusMethodNotAllowed, "method not allowed: CONNECT is not served by this listener")
		return
	}
	dropH2CUpgrade(r)
	an := analyze(r)
	var body []byte
	ev := app.Evaluate(s, an)
	// Only a request an approval rule covers is fingerprinted, so only its
	// body is read (app.NeedsPayload) and its canonical bytes built.
	held := ev.Verdict == domain.VerdictApproval
	if held {
		var res *app.Reservation
		var ok bool
		if body, res, ok = h.holdBody(w, r); !ok {
			return
		}
		defer res.Release()
	}
	st := app.Statement{
		IdentityValues: app.IdentityValues(r.Header.Values, s.IdentityKeys),
		Canonical:      canonicalIf(held, r, body),
		Render:         func() string { return display(r, body) },
		Analysis:       an,
		ReturnMode:     app.WantsReturnModeHeader(r.Header.Values),
		Client:         r.RemoteAddr,
		Evaluation:     &ev,
	}
	out := h.l.CheckWith(r.Context(), s, st)
	if !out.Forward {
		if r.Context().Err() != nil {
			return // the client left while the request was held
		}
		if out.Denial == nil {
			out.Denial = &domain.Denial{Kind: domain.DeniedByPolicy, Message: "statement denied"}
		}
		writeDenial(w, out.Denial)
		return
	}
	var plan *masking.Plan
	if s.Masking != nil {
		plan = app.MaskPlan(s, &st)
	}
	h.forward(w, r, s, held, out.Ticket, plan)
}

// upstreamPath returns the escaped path of the upstream URL of settings s,
// which the proxy puts in front of every forwarded path ("" when the
// upstream does not parse: nothing is forwarded then).
func (h *handler) upstreamPath(s *app.ListenerSettings) string {
	if rt := h.routes.get(s); rt.urlErr == nil {
		return rt.target.EscapedPath()
	}
	return ""
}

// canonicalIf returns canonical(r, body) when need is set, else nil: the
// gate fingerprints only statements an approval rule covers.
func canonicalIf(need bool, r *http.Request, body []byte) []byte {
	if !need {
		return nil
	}
	return canonical(r, body)
}

var errBodyTooLarge = errors.New("body too large")

// readHeldBody reads r's whole body (at most MaxHeldBody bytes) and puts it
// back so that it can still be forwarded. A chunked body is forwarded with a
// Content-Length once read.
func readHeldBody(r *http.Request) ([]byte, error) {
	if r.ContentLength > MaxHeldBody {
		return nil, errBodyTooLarge
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxHeldBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxHeldBody {
		return nil, errBodyTooLarge
	}
	_ = r.Body.Close()
	if len(b) == 0 {
		r.Body = http.NoBody
	} else {
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	r.ContentLength = int64(len(b))
	r.TransferEncoding = nil
	return b, nil
}

// dropH2CUpgrade removes a request's offer to switch to HTTP/2 cleartext
// (Upgrade: h2c): after such a switch the client could send any number of
// further requests on the tunnel that the gate would never see. Without the
// offer the upstream answers the request in HTTP/1.1, as RFC 9110 allows.
// Other upgrades (WebSocket, SPDY) carry messages, not requests, and pass.
func dropH2CUpgrade(r *http.Request) {
	for _, v := range r.Header.Values("Upgrade") {
		for p := range strings.SplitSeq(v, ",") {
			if name, _, _ := strings.Cut(strings.TrimSpace(p), "/"); strings.EqualFold(name, "h2c") {
				r.Header.Del("Upgrade")
				r.Header.Del("Http2-Settings")
				return
			}
		}
	}
}

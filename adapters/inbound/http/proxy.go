package httplistener

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
)

// upstreamURL reads the listener's upstream: a URL ("https://api:443",
// "http://10.0.0.5:8080/base") or a bare "host:port", which means http, or
// https when upstream_tls is enabled. upstream_tls enabled always means https.
func upstreamURL(s *app.ListenerSettings) (*url.URL, error) {
	raw := s.Upstream
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("upstream %q: %w", s.Upstream, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("upstream %q: scheme must be http or https", s.Upstream)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("upstream %q: no host", s.Upstream)
	}
	if s.UpstreamTLS.Enabled {
		u.Scheme = "https"
	}
	return u, nil
}

// pathOverrideHeaders are request headers that some upstreams read as the
// path to act on instead of the request line's (IIS URL Rewrite, Laminas and
// Zend, Symfony before 4.4 for X-Rewrite-URL). The rules and the
// /.well-known/hoop/ reservation read the request line, so a client's value
// would take a held path or the reserved prefix past them: they are dropped.
// The Sidecar is the proxy that would set them, and it does not.
var pathOverrideHeaders = []string{"X-Original-URL", "X-Rewrite-URL"}

// forward proxies r to the upstream of settings s and writes the upstream's
// answer, streaming both ways: bodies are not buffered (unless the handler
// already buffered one for the gate), every response is flushed as it comes
// (SSE, kubectl logs -f, watches: headers at once; a response of known
// length: its headers with the first body bytes), and a 101 Switching Protocols (WebSocket,
// SPDY for kubectl exec) joins the two connections.
//
// The upstream request carries the path and query as the client sent them,
// the upstream's Host, fresh X-Forwarded-For,
// X-Forwarded-Host and X-Forwarded-Proto (a client's own X-Forwarded-* are
// dropped), and no X-Hoop-Approval header nor pathOverrideHeaders.
//
// held says an approval rule covered the request (it runs on a connection of
// its own, never replayed). With a ticket (spend_approval_on: accepted), the
// approval is given back (APPROVED) only with proof that nothing of the
// request ran (spend.go): an answer whose status refuses the request, or a
// request that never got a connection to the upstream. Every other answer,
// and no answer once the request had a connection, spends it (EXECUTED).
//
// plan, when not nil, masks the answer's body (maskResponse); the masked
// audit line is written once the answer was sent.
func (h *handler) forward(w http.ResponseWriter, r *http.Request, s *app.ListenerSettings, held bool, ticket *app.Ticket,
	plan *masking.Plan) {
	defer ticket.Spend() // no-op once settled
	// m only with a plan: a request without one allocates nothing more.
	var m *maskRun
	if plan != nil {
		m = &maskRun{plan: plan}
		defer func() { h.l.Masked(s, r.RemoteAddr, "", m.plan, m.withheld) }()
	}
	var sent atomic.Bool // the request got a connection to the upstream
	rt := h.routes.get(s)
	if rt.urlErr != nil {
		ticket.GiveBack(domain.NotSent("the listener's upstream is misconfigured"))
		h.log.Error("bad upstream", "error", rt.urlErr)
		writeText(w, http.StatusBadGateway, "bad gateway: the listener's upstream is misconfigured")
		return
	}
	target, tr, err := rt.target, rt.tr, rt.trErr
	if held && err == nil {
		tr, err = h.p.transport(s.UpstreamTLS, true)
	}
	if err != nil {
		ticket.GiveBack(domain.NotSent("the listener's upstream TLS settings do not load"))
		h.log.Error("bad upstream tls", "error", err)
		writeText(w, http.StatusBadGateway, "bad gateway: the listener's upstream TLS settings do not load")
		return
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// ReverseProxy re-encodes a query it cannot parse (";", a bad
			// escape), dropping parameters: the upstream must get the query
			// the fingerprint covers and the approver saw, byte for byte.
			pr.Out.URL.RawQuery = pr.In.URL.RawQuery
			pr.SetURL(target)
			pr.SetXForwarded()
			pr.Out.Header.Del(domain.Names.HeaderApprovalMode)
			if ticket != nil {
				pr.Out = pr.Out.WithContext(httptrace.WithClientTrace(pr.Out.Context(),
					&httptrace.ClientTrace{
						GotConn: func(httptrace.GotConnInfo) { sent.Store(true) },
						WroteRequest: func(i httptrace.WroteRequestInfo) {
							if i.Err == nil {
								ticket.Sent()
							}
						},
					}))
			}
			for _, k := range pathOverrideHeaders {
				pr.Out.Header.Del(k)
			}
		},
		Transport: tr,
		// 0: a response of unknown length (chunked: watches, logs -f) or
		// an event stream still gets ReverseProxy's immediate flushing,
		// headers first; flushWriter sends the bytes of any other response
		// as they come, its headers with the first of them (one write
		// instead of two for a short answer).
		FlushInterval: 0,
		BufferPool:    &h.p.buffers,
		ErrorLog:      h.errLog,
		ModifyResponse: func(resp *http.Response) error {
			ticket.GiveBack(proof(resp.StatusCode))
			if m == nil {
				return nil
			}
			return maskResponse(m.plan, resp)
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if !sent.Load() {
				ticket.GiveBack(domain.NotSent("no connection to the upstream: " + err.Error()))
			}
			// Sent and no answer: the outcome is unknown, so the approval is
			// spent now, before the 502 reaches the client (not later, by the
			// deferred Spend, after the client has read it).
			ticket.Spend()
			if m != nil {
				if m.withheld = withheldError(err); m.withheld != nil {
					writeWithheld(w, m.withheld)
					return
				}
			}
			if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
				return // the client left
			}
			h.log.Warn("upstream did not answer", "upstream", target.Redacted(), "method", r.Method, "error", err)
			writeText(w, http.StatusBadGateway, "bad gateway: the upstream did not answer")
		},
	}
	rp.ServeHTTP(flushWriter{w}, r)
}

package httplistener

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/ports"
)

// The error texts of the reserved prefix. They never echo the id or the path.
const (
	msgNotFound    = "approval request not found on this listener"
	msgNotServed   = "not found: /.well-known/hoop/ belongs to the Sidecar and is never forwarded to the upstream"
	msgMalformed   = "bad request: this request target reads as a path under /.well-known/hoop/, which belongs to the Sidecar and is never forwarded to the upstream"
	msgMethod      = "method not allowed: the status path answers GET and HEAD only"
	msgNoCP        = "this Sidecar has no Control Plane, so it cannot report approval requests"
	msgUnavailable = "the Control Plane could not report the approval request; a person checks the approval request in the Control Plane"
	msgOlder       = "the Control Plane is older than this Sidecar; a person checks the approval request in the Control Plane"
)

// statusReadTimeout bounds the one Control Plane read behind a status path answer.
const statusReadTimeout = 15 * time.Second

// serveReserved answers a request whose target reserve put under
// /.well-known/hoop/ (res; p is its path as sent), when it came first on its
// connection: the status path (spec, "Read the status on an http
// listener"), 404 for any other plainly spelled path under the prefix, 400
// for a target under it only in some lenient reading. Every answer has
// Cache-Control: no-store and Connection: close; errors are {"message": …}.
//
//	400 a target under the prefix only as some server may read it (any method)
//	404 (not a status path) a plain path under the prefix (any method)
//	200 the approval view (domain.NewView, no instruction)
//	404 unknown id, another Sidecar's, or filed on another listener
//	405 a method other than GET or HEAD (Allow: GET, HEAD)
//	502 the Control Plane failed, refused the token, or is older than the Sidecar
//	503 the Sidecar has no Control Plane
func (h *handler) serveReserved(w http.ResponseWriter, r *http.Request, res reservation, p string) {
	switch res {
	case reservedMalformed:
		h.log.Info("refused a request target that reads as a path under /.well-known/hoop/",
			"client", r.RemoteAddr, "target", clip(r.RequestURI, 256))
		writeJSON(w, r, http.StatusBadRequest, errorBody(msgMalformed))
		return
	case reservedNotServed:
		writeJSON(w, r, http.StatusNotFound, errorBody(msgNotServed))
		return
	}
	id, family := statusPathID(p)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeJSON(w, r, http.StatusMethodNotAllowed, errorBody(msgMethod))
		return
	}
	q := h.l.Approvals()
	if !q.HasControlPlane() {
		writeJSON(w, r, http.StatusServiceUnavailable, errorBody(msgNoCP))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), statusReadTimeout)
	defer cancel()
	a, err := q.Status(ctx, id)
	switch {
	case err == nil && a.ListenerName != h.l.Settings().Name:
		// Filed on another listener of this Sidecar: reads as a wrong id.
		writeJSON(w, r, http.StatusNotFound, errorBody(msgNotFound))
	case err == nil:
		writeJSON(w, r, http.StatusOK, q.View(a, false, family))
	case errors.Is(err, ports.ErrNotFound):
		writeJSON(w, r, http.StatusNotFound, errorBody(msgNotFound))
	case errors.Is(err, app.ErrNoControlPlane):
		writeJSON(w, r, http.StatusServiceUnavailable, errorBody(msgNoCP))
	case errors.Is(err, ports.ErrOlder):
		writeJSON(w, r, http.StatusBadGateway, errorBody(msgOlder))
	default:
		if r.Context().Err() != nil {
			return // the client left
		}
		h.log.Warn("status path: the Control Plane could not report an approval", "approval_id", id, "error", err)
		writeJSON(w, r, http.StatusBadGateway, errorBody(msgUnavailable))
	}
}

// clip returns s cut to at most n bytes, for a log line.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

type messageBody struct {
	Message string `json:"message"`
}

func errorBody(msg string) messageBody { return messageBody{Message: msg} }

// writeJSON writes v as the answer with code, indented like the spec's
// example; HEAD gets the same headers and no body. The connection closes
// after the answer.
func writeJSON(w http.ResponseWriter, r *http.Request, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"message":"internal error"}`)
	}
	b = append(b, '\n')
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Connection", "close")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b)
	}
}

// hangUp closes r's connection without an answer: a request under the
// reserved prefix that was not the first on its connection (HTTP/1.1 pairs
// answers with requests by order, so answering it could be mistaken for the
// upstream's answer to an earlier request).
func (h *handler) hangUp(w http.ResponseWriter, r *http.Request) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // aborts the connection without an answer
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
	h.log.Info("closed a connection unanswered: /.well-known/hoop/ behind another request", "client", r.RemoteAddr)
}

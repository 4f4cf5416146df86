package httplistener

import (
	"io"
	"net/http"
	"strconv"

	"github.com/hoophq/sidecar/domain"
)

// writeDenial answers a denied request with 403, text/plain, the denial's
// message as the body, and the denial's fields (domain.Denial.Fields: the
// spec's "Find the approval in the denial") as headers.
//
// kubectl prints such a body as "Error from server (Forbidden): <message>".
//
// A wait-mode request still waiting for a person when the Sidecar shuts down
// (domain.DeniedShutdown) gets 503 with the same headers and
// Connection: close instead: nothing ran, and the identical request resent
// to a Sidecar that is up finds the same approval.
func writeDenial(w http.ResponseWriter, d *domain.Denial) {
	hd := w.Header()
	hd.Set("Content-Type", "text/plain; charset=utf-8")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "no-store")
	for _, f := range d.Fields() {
		hd.Set(f.Name, f.Value)
	}
	hd.Set("Content-Length", strconv.Itoa(len(d.Message)))
	code := http.StatusForbidden
	if d.Kind == domain.DeniedShutdown {
		code = http.StatusServiceUnavailable
		hd.Set("Connection", "close")
	}
	w.WriteHeader(code)
	_, _ = io.WriteString(w, d.Message)
}

// writeText answers with code and a plain-text message (errors of the
// listener itself, e.g. an unreachable upstream).
func writeText(w http.ResponseWriter, code int, msg string) {
	hd := w.Header()
	hd.Set("Content-Type", "text/plain; charset=utf-8")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Length", strconv.Itoa(len(msg)))
	w.WriteHeader(code)
	_, _ = io.WriteString(w, msg)
}

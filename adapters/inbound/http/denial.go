package httplistener

import (
	"io"
	"net/http"
	"strconv"

	"github.com/hoophq/sidecar/domain"
)

// writeDenial answers a denied request with 403, text/plain, the denial's
// message as the body, and the spec's fields as headers ("Find the approval
// in the denial"):
//
//	X-Hoop-Denied            review (approval denial) or policy (any other)
//	X-Hoop-Approval-Id       the approval id, with X-Hoop-Review-Id
//	X-Hoop-Approval-Status   the status, with X-Hoop-Review-Status; both left out
//	                         when the Sidecar could not read it
//	Retry-After: 5           only in return mode while the request is PENDING
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
	hd.Set(domain.Names.HeaderDenied, d.DeniedValue())
	if d.NamesApproval() {
		hd.Set(domain.Names.HeaderApprovalID, d.ApprovalID)
		hd.Set(domain.Names.HeaderReviewID, d.ApprovalID)
	}
	if d.NamesApproval() && d.Status != "" {
		hd.Set(domain.Names.HeaderApprovalStatus, string(d.Status))
		hd.Set(domain.Names.HeaderReviewStatus, string(d.Status))
	}
	if d.RetryAfter {
		hd.Set(domain.Names.HeaderRetryAfter, strconv.Itoa(domain.RetryAfterSeconds))
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

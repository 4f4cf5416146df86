package httplistener

import (
	"fmt"
	"net/http"

	"github.com/hoophq/sidecar/domain"
)

// refused are the statuses with which an upstream refuses a request before
// it acts on it (RFC 9110, section 15.5: the request is malformed, not
// allowed, of a resource that is not there, or not acceptable as sent; the
// Kubernetes API answers 400, 401, 403, 404, 409, 422 and 429 this way).
// A 5xx, a 1xx, a 3xx and every status not listed is no proof: a server
// error may come after part of the work.
var refused = map[int]bool{
	400: true, 401: true, 403: true, 404: true, 405: true, 406: true, 407: true,
	409: true, 410: true, 411: true, 412: true, 413: true, 414: true, 415: true,
	416: true, 417: true, 421: true, 422: true, 426: true, 428: true, 429: true,
	431: true,
}

// proof returns the proof that nothing of a forwarded request ran
// (domain.NothingRan; spend_approval_on: accepted) for the upstream's answer
// status code, or the zero value, which spends the approval.
// docs/http-listener.md names the statuses.
func proof(code int) domain.NothingRan {
	if !refused[code] {
		return domain.NothingRan{}
	}
	return domain.RefusedBeforeRun(fmt.Sprintf("HTTP %d %s", code, http.StatusText(code)))
}

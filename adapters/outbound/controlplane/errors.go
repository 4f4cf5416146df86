package controlplane

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/hoophq/sidecar/ports"
)

// Errors of this client that are not one of the ports errors. Their metrics
// kind is "other".
var (
	// ErrRejected: the Control Plane refused the request (400 invalid, a
	// redirect, or another 4xx the contract does not list).
	ErrRejected = errors.New("control plane refused the request")
	// ErrBadAnswer: a 2xx answer whose body this client cannot read.
	ErrBadAnswer = errors.New("control plane answered with a body this Sidecar cannot read")
	// ErrNoToken: the token source failed (the message names the variable or
	// file, never the value).
	ErrNoToken = errors.New("no Sidecar token")
)

// Error is the error of one Control Plane call. Kind is one of
// ports.ErrNotFound, ErrUnavailable, ErrOlder, ErrUnauthorized, ErrConflict,
// or ErrRejected, ErrBadAnswer, ErrNoToken; errors.Is matches Kind and
// anything Cause wraps (for example context.DeadlineExceeded). The message
// never contains the Sidecar token.
type Error struct {
	// Call is the call's name: file, get, list, claim, settle or info.
	Call string
	Kind error
	// HTTPStatus is the answer's status code, 0 when no answer came.
	HTTPStatus int
	// Code and Message are the Control Plane's JSON error, when it sent one.
	Code, Message string
	// Cause is the underlying error (network, timeout, decoding), or nil.
	Cause error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("control plane ")
	b.WriteString(e.Call)
	b.WriteString(": ")
	b.WriteString(e.Kind.Error())
	if e.HTTPStatus != 0 {
		fmt.Fprintf(&b, " (HTTP %d", e.HTTPStatus)
		if e.Code != "" {
			b.WriteString(" " + e.Code)
		}
		b.WriteString(")")
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Cause != nil {
		b.WriteString(": " + e.Cause.Error())
	}
	return b.String()
}

// Unwrap returns Kind and Cause, so errors.Is and errors.As see both.
func (e *Error) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Cause}
}

// ErrKind returns the metrics label of err: "" for nil, else unavailable,
// not_found, older, unauthorized, conflict or other.
func ErrKind(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ports.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, ports.ErrNotFound):
		return "not_found"
	case errors.Is(err, ports.ErrOlder):
		return "older"
	case errors.Is(err, ports.ErrUnauthorized):
		return "unauthorized"
	case errors.Is(err, ports.ErrConflict):
		return "conflict"
	default:
		return "other"
	}
}

// APIVersion is the Control Plane API version this client needs.
const APIVersion = 1

// apiError is the contract's error body.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// classify turns a non-success answer into an *Error following
// docs/control-plane-api.md:
//
//   - 5xx → ErrUnavailable (a Control Plane that failed, or a proxy in front
//     of one that is down; checked first so an outage is never read as an
//     upgrade problem);
//   - no X-Hoop-Api-Version header, or one below 1 → ErrOlder;
//   - 404 or 405 whose body is not a JSON error with a code → ErrOlder (the
//     route does not exist there);
//   - 401 and 403 → ErrUnauthorized; 404 → ErrNotFound; 409 → ErrConflict;
//   - anything else → ErrRejected.
//
// For a 2xx answer it only checks the version header and returns nil when
// that is fine. A 3xx (redirects are not followed) → ErrRejected naming the
// Location, checked before the version since a redirecting proxy never sends it.
func classify(call string, status int, header http.Header, body []byte) *Error {
	e := &Error{Call: call, HTTPStatus: status}
	var ae apiError
	isJSONErr := json.Unmarshal(body, &ae) == nil && ae.Code != ""
	if isJSONErr {
		e.Code, e.Message = ae.Code, ae.Message
	}
	switch {
	case status >= 500:
		e.Kind = ports.ErrUnavailable
		return e
	case status >= 300 && status < 400:
		e.Kind = ErrRejected
		e.Cause = fmt.Errorf("redirected to %q; set the Control Plane URL to the final address", header.Get("Location"))
		return e
	case !versionOK(header):
		e.Kind, e.Code, e.Message = ports.ErrOlder, "", ""
		e.Cause = fmt.Errorf("answer has X-Hoop-Api-Version %q, this Sidecar needs %d", header.Get("X-Hoop-Api-Version"), APIVersion)
		return e
	case status >= 200 && status < 300:
		return nil
	case (status == http.StatusNotFound || status == http.StatusMethodNotAllowed) && !isJSONErr:
		e.Kind = ports.ErrOlder
		e.Cause = errors.New("the route does not exist there")
		return e
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = ports.ErrUnauthorized
	case status == http.StatusNotFound:
		e.Kind = ports.ErrNotFound
	case status == http.StatusConflict:
		e.Kind = ports.ErrConflict
	default:
		e.Kind = ErrRejected
	}
	return e
}

// versionOK reports whether the answer carries X-Hoop-Api-Version >= 1.
func versionOK(h http.Header) bool {
	v := strings.TrimSpace(h.Get("X-Hoop-Api-Version"))
	n, err := strconv.Atoi(v)
	return err == nil && n >= APIVersion
}

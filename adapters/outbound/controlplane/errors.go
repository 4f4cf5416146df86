package controlplane

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
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
// ErrTooLarge, or ErrRejected, ErrBadAnswer, ErrNoToken; errors.Is matches Kind and
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
// not_found, older, unauthorized, conflict, too_large or other.
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
	case errors.Is(err, ports.ErrTooLarge):
		return "too_large"
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
// docs/control-plane-api.md ("What the Sidecar reads as older, and what as
// unavailable"). "Older" needs the Control Plane to have said so; an answer
// that is not the contract's shape (a proxy's page, garbage) is unavailable,
// so waiters keep waiting through it:
//
//   - 5xx → ErrUnavailable (a Control Plane that failed, or a proxy in front
//     of one that is down; checked first so an outage is never read as an
//     upgrade problem);
//   - 3xx → ErrRejected naming the Location (redirects are not followed; a
//     redirecting proxy never sends the version header);
//   - X-Hoop-Api-Version present and an integer below 1 → ErrOlder;
//   - X-Hoop-Api-Version present but not an integer → ErrUnavailable;
//   - no X-Hoop-Api-Version and a JSON body (not an HTML page) → ErrOlder:
//     an API server that answers JSON but not this contract;
//   - no X-Hoop-Api-Version otherwise (an HTML page, text, an empty body)
//     → ErrUnavailable: not the Control Plane speaking;
//   - version 1 or later: 2xx → nil; 404 or 405 whose body is not a JSON
//     error with a code → ErrOlder (a Control Plane without that route);
//     401 and 403 → ErrUnauthorized; 404 → ErrNotFound; 409 → ErrConflict;
//     anything else → ErrRejected.
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
	case status == http.StatusRequestEntityTooLarge:
		// The Control Plane's or a proxy's in front of it (nginx's
		// client_max_body_size is 1 MiB by default): either way the same
		// request is refused again.
		e.Kind = ports.ErrTooLarge
		return e
	}
	switch v, n := apiVersion(header); {
	case v == "" && !isJSONBody(header, body):
		e.Kind, e.Code, e.Message = ports.ErrUnavailable, "", ""
		e.Cause = fmt.Errorf("answer without %s and without a JSON body (%s), not the Control Plane's", headerAPI, describe(header, body))
		return e
	case v == "":
		e.Kind, e.Code, e.Message = ports.ErrOlder, "", ""
		e.Cause = fmt.Errorf("JSON answer without %s, this Sidecar needs %d", headerAPI, APIVersion)
		return e
	case n < 0:
		e.Kind, e.Code, e.Message = ports.ErrUnavailable, "", ""
		e.Cause = fmt.Errorf("answer has %s %q, not a version number", headerAPI, v)
		return e
	case n < APIVersion:
		e.Kind, e.Code, e.Message = ports.ErrOlder, "", ""
		e.Cause = fmt.Errorf("answer has %s %q, this Sidecar needs %d", headerAPI, v, APIVersion)
		return e
	}
	switch {
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

// apiVersion returns the X-Hoop-Api-Version header's value ("" when absent)
// and its number, -1 when it is not a non-negative integer.
func apiVersion(h http.Header) (string, int) {
	v := strings.TrimSpace(h.Get(headerAPI))
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return v, -1
	}
	return v, n
}

// isJSONBody reports whether body is one JSON value and the answer does not
// call itself an HTML page.
func isJSONBody(h http.Header, body []byte) bool {
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt == "text/html" {
		return false
	}
	return len(bytes.TrimSpace(body)) > 0 && json.Valid(body)
}

// describe names an answer's media type and size for an error message,
// never its content (it may echo anything).
func describe(h http.Header, body []byte) string {
	ct := h.Get("Content-Type")
	if ct == "" {
		ct = "no Content-Type"
	}
	return fmt.Sprintf("%s, %d bytes", ct, len(body))
}

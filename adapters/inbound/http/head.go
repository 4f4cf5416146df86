package httplistener

import (
	"bytes"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/hoophq/sidecar/domain"
)

// headerField is one header line of a message head, name and value as sent
// (the value without surrounding spaces).
type headerField struct{ name, value string }

// requestHead is a request head the relay (relay.go) forwards itself: an
// HTTP/1.1 request in origin form, with at most one Content-Length and no
// Transfer-Encoding, Upgrade or Expect. parseRequestHead returns ok=false
// for every other head, and the connection goes to net/http (handoff.go),
// which answers it exactly as before: a malformed head with its 400, a
// conflict between Content-Length and Transfer-Encoding, obs-fold and bare
// LF line ends included (RFC 9112 §§2.2, 5.2, 6.1, 6.3).
type requestHead struct {
	method, target, host string
	fields               []headerField
	// contentLength is the body's length (0 when there is none).
	contentLength int64
	// close: the client sent Connection: close.
	close bool
	// connTokens are the other tokens of Connection (header names that are
	// hop-by-hop for this message, RFC 9110 §7.6.1), lower case.
	connTokens []string
}

// headEnd returns the length of the request head at the start of b (the
// bytes up to and including the empty line that ends it) or 0 when b does
// not hold a whole head yet. bad is true when a line of b ends in a bare LF
// (no CR before it) or the head starts with an empty line: the relay leaves
// such input to net/http.
func headEnd(b []byte) (n int, bad bool) {
	start := 0
	for {
		i := bytes.IndexByte(b[start:], '\n')
		if i < 0 {
			return 0, false
		}
		i += start
		if i == 0 || b[i-1] != '\r' {
			return 0, true
		}
		if i-start == 1 { // "\r\n": the empty line
			if start == 0 {
				return 0, true
			}
			return i + 1, false
		}
		start = i + 1
	}
}

// parseRequestHead reads the request head h (headEnd's bytes). It returns
// ok=false for anything the relay leaves to net/http (see requestHead).
func parseRequestHead(h string) (rh requestHead, ok bool) {
	line, rest, _ := strings.Cut(h, "\r\n")
	method, line, ok1 := strings.Cut(line, " ")
	target, proto, ok2 := strings.Cut(line, " ")
	if !ok1 || !ok2 || proto != "HTTP/1.1" || !validMethod(method) || !validTarget(target) {
		return rh, false
	}
	rh.method, rh.target = method, target
	hosts := 0
	lengths := 0
	rh.fields = make([]headerField, 0, 8)
	for rest != "\r\n" && rest != "" {
		line, rest, _ = strings.Cut(rest, "\r\n")
		name, value, found := strings.Cut(line, ":")
		if !found || !httpguts.ValidHeaderFieldName(name) {
			return rh, false // also obs-fold: a line starting with a space
		}
		value = strings.Trim(value, " \t")
		if !httpguts.ValidHeaderFieldValue(value) {
			return rh, false
		}
		switch {
		case strings.EqualFold(name, "Host"):
			hosts++
			rh.host = value
		case strings.EqualFold(name, "Content-Length"):
			lengths++
			n, err := strconv.ParseUint(value, 10, 63)
			if err != nil || value == "" || value[0] == '+' {
				return rh, false
			}
			rh.contentLength = int64(n)
		case strings.EqualFold(name, "Transfer-Encoding"), strings.EqualFold(name, "Upgrade"),
			strings.EqualFold(name, "Expect"):
			return rh, false
		case strings.EqualFold(name, "Connection"):
			for t := range strings.SplitSeq(value, ",") {
				t = strings.ToLower(strings.TrimSpace(t))
				switch t {
				case "":
				case "close":
					rh.close = true
				case "upgrade":
					return rh, false
				default:
					rh.connTokens = append(rh.connTokens, t)
				}
			}
		}
		rh.fields = append(rh.fields, headerField{name, value})
	}
	if hosts != 1 || lengths > 1 || !httpguts.ValidHostHeader(rh.host) {
		return rh, false
	}
	return rh, true
}

// validMethod reports whether m is a token (RFC 9110 §9.1).
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for i := 0; i < len(m); i++ {
		if !httpguts.IsTokenRune(rune(m[i])) {
			return false
		}
	}
	return true
}

// validTarget reports whether t is an origin-form request target the relay
// forwards itself: it starts with '/' and holds only visible ASCII.
func validTarget(t string) bool {
	if t == "" || t[0] != '/' {
		return false
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// request returns rh as the *http.Request that the listener's shared
// reading (reserve, analyze, display, app.IdentityValues) takes: method,
// URL as url.ParseRequestURI reads the target (as net/http's server does),
// Host, RemoteAddr, and of the headers only those that reading looks at
// (readHeaders and identityKeys), in canonical form. It has no body. ok is
// false when the target does not parse (net/http answers 400 then).
func (rh *requestHead) request(remote string, identityKeys []string) (*http.Request, bool) {
	u, err := url.ParseRequestURI(rh.target)
	if err != nil {
		return nil, false
	}
	var hd http.Header
	for _, f := range rh.fields {
		if !containsFoldString(readHeaders, f.name) && !containsFoldString(identityKeys, f.name) {
			continue
		}
		if hd == nil {
			hd = make(http.Header, 2)
		}
		k := textproto.CanonicalMIMEHeaderKey(f.name)
		hd[k] = append(hd[k], f.value)
	}
	return &http.Request{
		Method: rh.method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: hd, Host: rh.host, RequestURI: rh.target, RemoteAddr: remote,
		ContentLength: rh.contentLength, Body: http.NoBody,
	}, true
}

// readHeaders are the request headers the listener's reading of a
// statement looks at: what it means (meaningHeaders: method overrides,
// Content-Type, Content-Encoding) and the return mode header.
var readHeaders = append([]string{domain.Names.HeaderApprovalMode}, meaningHeaders...)

// containsFoldString reports whether list holds s, ignoring case.
func containsFoldString(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

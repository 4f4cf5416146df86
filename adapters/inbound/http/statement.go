package httplistener

import (
	"encoding/binary"
	"fmt"
	"net/http"
	"net/textproto"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hoophq/sidecar/domain"
)

// methodOverrideHeaders are headers some frameworks read as the real method
// (a POST that acts as a DELETE). Their values join the analysis's actions,
// so a rule on DELETE also holds such a POST.
var methodOverrideHeaders = []string{"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"}

// headerValues is r.Header.Values(k) for a key k that canonicalKeys already
// put in canonical form (Values would canonicalize it again on every call,
// allocating for keys such as X-HTTP-Method).
func headerValues(r *http.Request, k string) []string { return r.Header[k] }

// canonicalKeys returns keys in canonical MIME header form, in order.
func canonicalKeys(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = textproto.CanonicalMIMEHeaderKey(k)
	}
	return out
}

// methodOverrideKeys are methodOverrideHeaders in canonical form, for lookups.
var methodOverrideKeys = canonicalKeys(methodOverrideHeaders)

// analyze returns what rules match on r: Actions = [method] (plus any method
// override header values), Targets = [path as decoded] plus the path with dot
// segments, repeated and trailing slashes collapsed when that differs, so
// "/a//b/" and "/a/./b" match the rules of "/a/b"; plus what lenient
// upstreams read (lenientReadings: escapes decoded again, '\' as '/',
// ";params" dropped) and each of those in lower case, for case-insensitive
// routers. Extra targets can only hold more, never less. Effects are the
// protocol-blind words of effects.go. It needs no body.
func analyze(r *http.Request) domain.Analysis {
	a := domain.Analysis{Actions: []string{r.Method}}
	for _, k := range methodOverrideKeys {
		for _, v := range headerValues(r, k) {
			if v = strings.TrimSpace(v); v != "" {
				a.Actions = append(a.Actions, strings.ToUpper(v))
			}
		}
	}
	p := r.URL.Path
	a.Targets = []string{p}
	if strings.HasPrefix(p, "/") {
		if c := path.Clean(p); c != p {
			a.Targets = append(a.Targets, c)
		}
	}
	for _, n := range lenientReadings(p) {
		for _, t := range []string{n, strings.ToLower(n)} {
			if !slices.Contains(a.Targets, t) {
				a.Targets = append(a.Targets, t)
			}
		}
	}
	a.Effects = effects(r, a.Actions, a.Targets)
	return a
}

// meaningHeaders are the headers that change what the upstream does with a
// request: the method override headers and what the body is. Every value of
// each is part of the statement, so an approval of a POST is never spent by
// a POST that asks the upstream to act as a DELETE.
var meaningHeaders = append([]string{"Content-Type", "Content-Encoding"}, methodOverrideHeaders...)

// meaningKeys are meaningHeaders in canonical form, for lookups.
var meaningKeys = canonicalKeys(meaningHeaders)

// canonical returns the bytes the fingerprint covers for r: the method, the
// path as sent, the raw query, every value of the meaningHeaders and the
// body, each length-prefixed so no two requests collide by concatenation.
// Other headers (and the listener's identity keys, which the gate adds) are
// not part of the statement.
func canonical(r *http.Request, body []byte) []byte {
	ep := r.URL.EscapedPath()
	out := make([]byte, 0, 8*(4+len(meaningKeys))+len(r.Method)+len(ep)+len(r.URL.RawQuery)+len(body)+64)
	field := func(f string) {
		out = binary.BigEndian.AppendUint64(out, uint64(len(f)))
		out = append(out, f...)
	}
	field(r.Method)
	field(ep)
	field(r.URL.RawQuery)
	for _, k := range meaningKeys {
		vs := headerValues(r, k)
		out = binary.BigEndian.AppendUint64(out, uint64(len(vs)))
		for _, v := range vs {
			field(v)
		}
	}
	out = binary.BigEndian.AppendUint64(out, uint64(len(body)))
	return append(out, body...)
}

// displayBodyMax is how much of a body the approver sees (bytes).
const displayBodyMax = 2048

// display renders r for the approver: "METHOD path?query", the method
// override, Content-Type and Content-Encoding headers, and a preview of the body (text up to 2 KiB, else its size). It goes to the
// Control Plane only, never back to an agent.
func display(r *http.Request, body []byte) string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte(' ')
	b.WriteString(r.URL.EscapedPath())
	if r.URL.RawQuery != "" {
		b.WriteByte('?')
		b.WriteString(r.URL.RawQuery)
	}
	header := func(name, key string) {
		for _, v := range headerValues(r, key) {
			b.WriteString("\n" + name + ": ")
			b.WriteString(v)
		}
	}
	for i, k := range methodOverrideHeaders {
		header(k, methodOverrideKeys[i])
	}
	header("Content-Type", "Content-Type")
	header("Content-Encoding", "Content-Encoding")
	if len(body) == 0 {
		return b.String()
	}
	preview := body
	if len(preview) > displayBodyMax {
		preview = preview[:displayBodyMax]
	}
	if !utf8.Valid(preview) && !utf8.Valid(preview[:max(0, len(preview)-utf8.UTFMax)]) {
		fmt.Fprintf(&b, "\n\n<binary body, %d bytes>", len(body))
		return b.String()
	}
	b.WriteString("\n\n")
	b.WriteString(strings.ToValidUTF8(string(preview), "\uFFFD"))
	if len(body) > len(preview) {
		fmt.Fprintf(&b, "\n… (%d bytes in all)", len(body))
	}
	return b.String()
}

package httplistener

import (
	"net/http"
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// reservation says how a request target stands to the reserved prefix
// /.well-known/hoop/, which belongs to the Sidecar and is never forwarded
// (spec, "Read the status on an http listener").
type reservation uint8

const (
	// notReserved: no reading of the target lies under the prefix; the gate
	// decides it.
	notReserved reservation = iota
	// reservedStatus: a plainly spelled status path,
	// /.well-known/hoop/approvals/<id> or /.well-known/hoop/reviews/<id>.
	reservedStatus
	// reservedNotServed: any other plainly spelled path under the prefix (404).
	reservedNotServed
	// reservedMalformed: under the prefix only as some server may read it
	// (dot segments, escapes, case, '\', trailing dots…), or a target whose
	// percent-decoding does not settle (400).
	reservedMalformed
)

// reserve reads r's request target and returns its reservation and, for
// reservedStatus and reservedNotServed, its path as sent. upstreamPath is
// the path of the listener's upstream URL ("" or "/" for none): the forwarded
// path is that path joined with the target's, and it is read too.
//
// The target is read as sent (r.RequestURI, the path of an absolute-form
// target included), as Go parsed it (r.URL.EscapedPath, which is what the
// proxy forwards), and joined to upstreamPath; each through every reading of
// readsIntoPrefix. Any reading under the prefix reserves the target.
func reserve(r *http.Request, upstreamPath string) (reservation, string) {
	sent := targetPath(r.RequestURI)
	esc := r.URL.EscapedPath()
	inputs := [3]string{sent, esc, ""}
	if upstreamPath != "" && upstreamPath != "/" {
		inputs[2] = joinPath(upstreamPath, esc)
	}
	in := false
	for i, p := range inputs {
		if p == "" || i > 0 && p == inputs[0] {
			continue
		}
		hit, settled := readsIntoPrefix(p)
		if !settled {
			return reservedMalformed, ""
		}
		in = in || hit
	}
	switch {
	case !in:
		return notReserved, ""
	case !plainlyReserved(sent):
		return reservedMalformed, ""
	}
	if _, ok := domain.StatusPathID(sent); ok {
		return reservedStatus, sent
	}
	return reservedNotServed, sent
}

// targetPath returns the path of a request target as sent, without its
// query (RFC 9112 §3.2): the target itself in origin form, the part after
// the authority in absolute form ("http://h/p?q" gives "/p").
func targetPath(target string) string {
	if i := strings.IndexByte(target, '?'); i >= 0 {
		target = target[:i]
	}
	if target == "" || target[0] == '/' {
		return target
	}
	if i := strings.IndexByte(target, ':'); i > 0 && isScheme(target[:i]) {
		target = target[i+1:]
		if strings.HasPrefix(target, "//") {
			target = target[2:]
			if j := strings.IndexByte(target, '/'); j >= 0 {
				return target[j:]
			}
			return "/"
		}
	}
	return target
}

// isScheme reports whether s is an RFC 3986 §3.1 scheme.
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// joinPath joins an upstream URL's escaped path and a request's the way
// httputil.ReverseProxy does (one slash between them).
func joinPath(a, b string) string {
	as, bs := strings.HasSuffix(a, "/"), strings.HasPrefix(b, "/")
	switch {
	case as && bs:
		return a + b[1:]
	case !as && !bs:
		return a + "/" + b
	}
	return a + b
}

// plainlyReserved reports whether the path p, as sent, is spelled plainly
// under the prefix: exactly "/.well-known/hoop" or starting with
// "/.well-known/hoop/", in lower case, with no dot segment, no empty segment
// but a last one, and only letters, digits and - . _ ~ ! $ & ' ( ) * + , = : @
// (no escape, no ';', no '\').
func plainlyReserved(p string) bool {
	const dir = "/" + prefixSeg1 + "/" + prefixSeg2
	if p != dir && !strings.HasPrefix(p, dir+"/") {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("-._~!$&'()*+,=:@/", c) >= 0) {
			return false
		}
	}
	segs := strings.Split(p[1:], "/")
	for i, s := range segs {
		if s == "." || s == ".." || s == "" && i < len(segs)-1 {
			return false
		}
	}
	return true
}

// statusPathID returns the approval id and naming family of the status path
// p (as reserve returned it for reservedStatus).
func statusPathID(p string) (id string, f domain.Family) {
	id, _ = domain.StatusPathID(p)
	if strings.HasPrefix(p, domain.Names.StatusPathReviews) {
		return id, domain.FamilyReview
	}
	return id, domain.FamilyApproval
}

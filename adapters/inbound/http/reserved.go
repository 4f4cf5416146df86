package httplistener

import (
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// isReserved reports whether r's target lies under /.well-known/hoop/, which
// belongs to the Sidecar and is never forwarded (spec, "Read the status on an
// http listener").
//
// It errs towards reserving: it looks at the path as decoded and as sent, and
// at what an upstream might make of it: percent-escapes decoded up to three
// times, backslashes read as slashes, ";params" dropped from segments, dot
// segments and repeated slashes collapsed, letters compared case-insensitively.
// So no spelling of the prefix that some upstream would normalize onto it
// reaches the upstream.
func isReserved(r *http.Request) bool {
	raw := r.RequestURI
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i]
	}
	// Only an absolute-form target ("http://host/path") has a scheme; one
	// that starts with '/' never parses to one.
	if !strings.HasPrefix(raw, "/") {
		if u, err := url.Parse(raw); err == nil && u.Scheme != "" {
			raw = u.EscapedPath() // absolute-form request target
		}
	}
	for _, p := range []string{r.URL.Path, r.URL.RawPath, raw} {
		if reservedPath(p) {
			return true
		}
	}
	return false
}

const reservedDir = "/.well-known/hoop"

func reservedPath(p string) bool {
	for _, n := range lenientReadings(p) {
		if underReserved(n) {
			return true
		}
	}
	return false
}

// lenientReadings returns what some upstream may make of path p: p
// normalized (see normalize), then again after each further percent-decoding,
// up to three more.
func lenientReadings(p string) []string {
	var out []string
	for range 4 {
		out = append(out, normalize(p))
		d, err := url.PathUnescape(p)
		if err != nil || d == p {
			break
		}
		p = d
	}
	return out
}

func underReserved(p string) bool {
	p = strings.ToLower(p)
	return p == reservedDir || strings.HasPrefix(p, reservedDir+"/")
}

// normalize reads p as a lenient server might: '\' as '/', ";params" dropped
// from each segment, then path.Clean from the root.
func normalize(p string) string {
	if p == "" {
		return ""
	}
	p = strings.ReplaceAll(p, `\`, "/")
	if strings.IndexByte(p, ';') < 0 { // no segment to cut: Split and Join give p back
		return path.Clean("/" + p)
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if j := strings.IndexByte(s, ';'); j >= 0 {
			segs[i] = s[:j]
		}
	}
	return path.Clean("/" + strings.Join(segs, "/"))
}

// statusPathID returns the approval id and naming family when r's path is
// exactly a status path, /.well-known/hoop/approvals/<id> or
// /.well-known/hoop/reviews/<id>; ok is false for any other path.
func statusPathID(r *http.Request) (id string, f domain.Family, ok bool) {
	id, ok = domain.StatusPathID(r.URL.Path)
	if !ok {
		return "", 0, false
	}
	if strings.HasPrefix(r.URL.Path, domain.Names.StatusPathReviews) {
		return id, domain.FamilyReview, true
	}
	return id, domain.FamilyApproval, true
}

package httplistener

import (
	"net/url"
	"path"
	"strings"
)

// lenientReadings returns the targets the gate's rules match besides the
// path itself (statement.go, analyze): what some upstream may make of path p: p
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

// normalize reads p as a lenient server might: '\' as '/', ";params" dropped
// from each segment, then path.Clean from the root.
func normalize(p string) string {
	if p == "" {
		return ""
	}
	p = strings.ReplaceAll(p, `\`, "/")
	if strings.IndexByte(p, ';') < 0 { // no segment to cut: Split and Join give p back
		if p[0] == '/' {
			return path.Clean(p) // no copy when p is clean already
		}
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

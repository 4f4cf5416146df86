package httplistener

import (
	"bufio"
	"strings"
	"testing"

	"net/http"
)

// readTarget parses "GET <target> HTTP/1.1" the way the listener's server does.
func readTarget(t testing.TB, target string) *http.Request {
	t.Helper()
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + target + " HTTP/1.1\r\nHost: h\r\n\r\n")))
	if err != nil {
		t.Fatalf("%q: %v", target, err)
	}
	return r
}

func TestReserve(t *testing.T) {
	const (
		no        = notReserved
		status    = reservedStatus
		notServed = reservedNotServed
		malformed = reservedMalformed
	)
	cases := map[string]reservation{
		// Plainly spelled.
		"/.well-known/hoop/approvals/x": status, "/.well-known/hoop/reviews/9f97-ab?x=1": status,
		"http://h/.well-known/hoop/approvals/x": status,
		"/.well-known/hoop":                     notServed, "/.well-known/hoop/": notServed,
		"/.well-known/hoop/approvals/": notServed, "/.well-known/hoop/approvals/a/b": notServed,
		"/.well-known/hoop/other": notServed,
		// The list: under the prefix before resolution, or as
		// lenient servers trim a segment.
		"/.well-known/hoop/../x": malformed, "/.well-known/hoop/..": malformed,
		"/.well-known/hoop/x/../../y": malformed, "/.well-known/hoop./x": malformed,
		"/.well-known/hoop%2e/x": malformed, "/.well-known/hoop%20/x": malformed,
		// Absolute form, params, double encoding, case, overlong UTF-8,
		// slashes, the query, NUL, backslash, Unicode forms.
		"http://h/.well-known/hoop/..": malformed, "HTTP://h:80//.well-known/hoop/x": malformed,
		"/.well-known/hoop;v=1/x": malformed, "/.well-known;a/hoop/x": malformed,
		"/.well-known/hoop%252e/x": malformed, "/%252ewell-known/hoop/x": malformed,
		"/%2Ewell-known/hoop/x": malformed, "/.WELL-KNOWN/HOOP/x": malformed, "/.well-known/Hoop": malformed,
		"/%c0%aewell-known/hoop/x": malformed, "/.well-known%c0%afhoop/x": malformed,
		"/%ef%bc%8ewell-known/hoop/x": malformed, // U+FF0E FULLWIDTH FULL STOP
		"/.well-%e2%84%aanown/hoop/x": malformed, // U+212A KELVIN SIGN
		"/%25u002ewell-known/hoop/x":  malformed, // IIS %uXXXX, once encoded (Go refuses it bare)
		"//.well-known//hoop/":        malformed, "/.well-known/hoop/approvals//x": malformed,
		"/.well-known/hoop/approvals/./x": malformed, "/./.well-known/hoop/a": malformed,
		"/.well-known/hoop%3fx": malformed, "/.well-known/hoop%23/x": malformed, "/.well-known/hoop%00/x": malformed,
		"/.well-known/ho%00op/x": malformed, `/.well-known\hoop\x`: malformed, "/.well-known%5choop": malformed,
		"/.well-known/hoop.%20.": malformed, "/.well-known/hoop%2f..%2f..%2fx": malformed,
		"/x/../.well-known/hoop/a": malformed, "/.well-known/x/../hoop": malformed,
		"/.well-known/a%2fb/../hoop": malformed, // '/' kept inside a segment, then resolved
		`/.well-known/a\b/../hoop`:   malformed, "/.well-known/..;/../hoop": malformed,
		"/.well-known/x//../../hoop":         malformed, // empty segments kept
		"/.well-known/hoop/approvals/%39f97": malformed, "/.well-known/%68oop/approvals/x": malformed,
		// A target still encoded after four decodings.
		"/%2525252525252e": malformed,
		// Never under the prefix.
		"/": no, "*": no, "/api/v1/pods": no, "/.well-known/hoopla": no, "/v1/.well-known/hoop/x": no,
		"/.well-known/other": no, "/.well-known/hoop-x/y": no, "/a/b/../c": no, "/x?/.well-known/hoop/": no,
		"/hoop": no, "/.well-known/x/hoop": no, "/%2525252e": no, "/v1/%2e%2e/.well-known": no,
		"/.well-known/hoop%2fx/../..": malformed,
	}
	for target, want := range cases {
		if got, _ := reserve(readTarget(t, target), ""); got != want {
			t.Errorf("reserve(%q) = %v, want %v", target, got, want)
		}
		// The fuzz targets' oracle reads these the same way.
		if in, settled := oracleInPrefix(target); (in || !settled) != (want != notReserved) {
			t.Errorf("oracleInPrefix(%q) = %v, settled %v; want reserved %v", target, in, settled, want != notReserved)
		}
	}
}

// The forwarded path is the upstream's path joined with the target's: an
// upstream URL ending in /.well-known keeps /hoop/x from being forwarded.
func TestReserveUpstreamPath(t *testing.T) {
	for _, c := range []struct {
		up, target string
		want       reservation
	}{
		{"/.well-known", "/hoop/x", reservedMalformed},
		{"/.well-known/", "/Hoop", reservedMalformed},
		{"/base", "/../.well-known/hoop/x", reservedMalformed},
		{"/base", "/hoop/x", notReserved},
		{"/", "/hoop/x", notReserved},
	} {
		if got, _ := reserve(readTarget(t, c.target), c.up); got != c.want {
			t.Errorf("upstream path %q, target %q: %v, want %v", c.up, c.target, got, c.want)
		}
	}
}

func TestTargetPath(t *testing.T) {
	for target, want := range map[string]string{
		"/a/b?c": "/a/b", "http://h/a?x": "/a", "http://h": "/", "https://h:8443//x/": "//x/",
		"http:/a/b": "/a/b", "*": "*", "h:443": "443", "/a#b?c": "/a#b",
	} {
		if got := targetPath(target); got != want {
			t.Errorf("targetPath(%q) = %q, want %q", target, got, want)
		}
	}
}

// BenchmarkReserve measures the reading of an ordinary target, one that
// mentions the prefix, and a long hostile one.
func BenchmarkReserve(b *testing.B) {
	for name, target := range map[string]string{
		"ordinary": "/api/v1/namespaces/default/pods/web-5d8f7c9b4-x2x9k/log?follow=true",
		"prefix":   "/.well-known/hoop/approvals/9f97c0a2-3c2e-4c55-9b8e-7c0e6a1d2f3b",
		"hostile":  "/" + strings.Repeat("%252e%c0%ae.;\\%25u002e/", 350) + ".well-known/hoop",
	} {
		r := readTarget(b, target)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				reserve(r, "")
			}
		})
	}
}

func TestReserveLongPath(t *testing.T) {
	long := "/" + strings.Repeat("a/", maxReadPath/2)
	if got, _ := reserve(readTarget(t, long), ""); got != notReserved {
		t.Errorf("a long path that never mentions hoop: %v", got)
	}
	if got, _ := reserve(readTarget(t, long+"hoop"), ""); got != reservedMalformed {
		t.Errorf("a long path that mentions hoop: %v", got)
	}
}

// FuzzReserveReadings compares reserve with oracleInPrefix, the brute-force
// restatement of the documented readings, on any target that the listener's
// server parses: a target with a reading under the prefix (or one that does
// not settle) is reserved, and a target of at most maxReadPath bytes with
// none is not. The upstream path is "/" or "/b/" (based).
func FuzzReserveReadings(f *testing.F) {
	f.Fuzz(func(t *testing.T, target string, based bool) {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + target + " HTTP/1.1\r\nHost: h\r\n\r\n")))
		if err != nil || len(target) > maxFuzzTarget {
			t.Skip("not a request target the listener reads")
		}
		up, joined := "/", r.URL.EscapedPath()
		if based {
			up, joined = "/b/", joinPath("/b/", joined)
		}
		in, settled := false, true
		for _, p := range []string{target, r.URL.EscapedPath(), joined} {
			i, s := oracleInPrefix(p)
			in, settled = in || i, settled && s
		}
		got, _ := reserve(r, up)
		switch {
		case (in || !settled) && got == notReserved:
			t.Fatalf("reserve(%q) = notReserved; the oracle reads it into the prefix (settled %v)", target, settled)
		case !in && settled && got != notReserved:
			t.Fatalf("reserve(%q) = %v; no reading of the oracle is in the prefix", target, got)
		}
	})
}

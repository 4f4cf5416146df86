package httpconformance

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// seen is one request that reached an upstream.
type seen struct {
	Method, Path, Query string
	Body                string
	RequestURI          string // the request target as the upstream read it
}

// recorder keeps the requests that reached an upstream.
type recorder struct {
	mu   sync.Mutex
	reqs []seen
}

func (rc *recorder) add(s seen) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.reqs = append(rc.reqs, s)
}

func (rc *recorder) all() []seen {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]seen(nil), rc.reqs...)
}

// count returns how many requests with method and path arrived.
func (rc *recorder) count(method, path string) int {
	n := 0
	for _, s := range rc.all() {
		if s.Method == method && s.Path == path {
			n++
		}
	}
	return n
}

// suiteSeen records every request that reached any upstream of the suite.
var suiteSeen = &recorder{}

// reservedSeen lists the requests that reached an upstream and mention the
// reserved prefix in any reading (mentionsReserved).
func reservedSeen() []seen {
	var out []seen
	for _, s := range suiteSeen.all() {
		if mentionsReserved(s.Path) || mentionsReserved(s.RequestURI) {
			out = append(out, s)
		}
	}
	return out
}

var escape = regexp.MustCompile(`%[0-9A-Fa-f]{2}|%[uU][0-9A-Fa-f]{4}`)

// mentionsReserved reports whether a request target names "well-known" or
// "hoop" once every escape (%XX, %uXXXX, nested) is decoded, Unicode
// compatibility forms (fullwidth letters…) are folded to ASCII, case is
// ignored, and every character but the letters a-z is dropped. Every reading
// of /.well-known/hoop/ that the listener seals (dot segments, trailing dots
// or spaces, NUL, '\', ';', escapes, overlong UTF-8) keeps those letters, so
// this cruder check, which shares no code with the listener, sees them all.
// No other path of the suite spells them.
func mentionsReserved(target string) bool {
	for range 8 {
		d := escape.ReplaceAllStringFunc(target, func(m string) string {
			if m[1] == 'u' || m[1] == 'U' {
				v, _ := strconv.ParseUint(m[2:], 16, 32)
				return string(rune(v))
			}
			v, _ := strconv.ParseUint(m[1:], 16, 8)
			return string([]byte{byte(v)})
		})
		if d == target {
			break
		}
		target = d
	}
	letters := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' {
			return r
		}
		return -1
	}, strings.ToLower(norm.NFKC.String(target)))
	return strings.Contains(letters, "hoop") || strings.Contains(letters, "wellknown")
}

// TestMain runs the suite, then fails it if any upstream ever received a
// request under /.well-known/hoop/ in any reading.
func TestMain(m *testing.M) {
	code := m.Run()
	if leaks := reservedSeen(); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: upstreams received requests under /.well-known/hoop/: %+v\n", leaks)
		code = 1
	} else if len(suiteSeen.all()) > 0 {
		fmt.Printf("upstreams received %d requests in all, none under /.well-known/hoop/\n", len(suiteSeen.all()))
	}
	os.Exit(code)
}

// newUpstream starts an upstream that records each request (in its own
// recorder and the suite's) and hands it to next, or answers
// "upstream ok <METHOD> <path>" when next is nil.
func newUpstream(t *testing.T, next http.Handler) (*httptest.Server, *recorder) {
	t.Helper()
	rc := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s := seen{r.Method, r.URL.Path, r.URL.RawQuery, string(body), r.RequestURI}
		rc.add(s)
		suiteSeen.add(s)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if next != nil {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "upstream ok "+r.Method+" "+r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv, rc
}

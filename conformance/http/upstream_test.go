package httpconformance

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// seen is one request that reached an upstream.
type seen struct {
	Method, Path, Query string
	Body                string
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

// reservedSeen lists the requests under the reserved prefix (in any
// spelling) that reached an upstream.
func reservedSeen() []seen {
	var out []seen
	for _, s := range suiteSeen.all() {
		if strings.Contains(strings.ToLower(s.Path), "well-known") {
			out = append(out, s)
		}
	}
	return out
}

// TestMain runs the suite, then fails it if any upstream ever received a
// request under /.well-known/hoop/.
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
		s := seen{r.Method, r.URL.Path, r.URL.RawQuery, string(body)}
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

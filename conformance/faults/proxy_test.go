package faults

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// answerDropper is an HTTP proxy in front of a Control Plane. It forwards
// every call; for the first drops[suffix] calls whose path ends in suffix
// it waits for the Control Plane's answer (the call was applied) and then
// resets the Sidecar's connection instead of relaying it.
type answerDropper struct {
	*httptest.Server
	mu      sync.Mutex
	drops   map[string]int
	dropped []string // "POST /api/…" of each answer dropped
}

func newAnswerDropper(t *testing.T, upstream string, drops map[string]int) *answerDropper {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	p := &answerDropper{drops: drops}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !p.take(r) {
			rp.ServeHTTP(w, r)
			return
		}
		// Applied by the Control Plane, answer lost on the way back.
		rp.ServeHTTP(httptest.NewRecorder(), r)
		panic(http.ErrAbortHandler)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *answerDropper) take(r *http.Request) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for s, n := range p.drops {
		if n > 0 && strings.HasSuffix(r.URL.Path, s) {
			p.drops[s] = n - 1
			p.dropped = append(p.dropped, r.Method+" "+r.URL.Path)
			return true
		}
	}
	return false
}

func (p *answerDropper) droppedCalls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.dropped...)
}

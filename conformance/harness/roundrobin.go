package harness

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

// RoundRobin is a load balancer for tests: each request goes to the next
// backend in turn, streamed (server-sent events pass as they come).
type RoundRobin struct {
	next     atomic.Int64
	backends []*httputil.ReverseProxy
	mu       sync.Mutex
	hits     []int
}

// NewRoundRobin returns a RoundRobin over the backend base URLs.
func NewRoundRobin(t testing.TB, urls ...string) *RoundRobin {
	t.Helper()
	rr := &RoundRobin{hits: make([]int, len(urls))}
	for _, u := range urls {
		target, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		rr.backends = append(rr.backends, &httputil.ReverseProxy{
			Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.URL.Path = target.Path },
			FlushInterval: -1,
			// A client closing its stream mid-copy is normal here.
			ErrorLog: log.New(io.Discard, "", 0),
		})
	}
	return rr
}

// ServeHTTP forwards r to the next backend.
func (rr *RoundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := int(rr.next.Add(1)-1) % len(rr.backends)
	rr.mu.Lock()
	rr.hits[i]++
	rr.mu.Unlock()
	rr.backends[i].ServeHTTP(w, r)
}

// Hits returns how many requests each backend got, in order.
func (rr *RoundRobin) Hits() []int {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return append([]int(nil), rr.hits...)
}

// SameAnswersViaRoundRobin checks that a server keeps no per-client state: a
// client session through a round-robin over urls gets the same answers as a
// session against each url on its own. run opens one session at the URL it
// is given and returns its answers in order. Each backend must have served
// at least minHits of the balanced session's requests.
func SameAnswersViaRoundRobin(t *testing.T, run func(t *testing.T, url string) []string, minHits int, urls ...string) {
	t.Helper()
	rr := NewRoundRobin(t, urls...)
	lb := httptest.NewServer(rr)
	defer lb.Close()
	u, err := url.Parse(urls[0])
	if err != nil {
		t.Fatal(err)
	}
	viaLB := run(t, lb.URL+u.Path)
	for i, direct := range urls {
		got := run(t, direct)
		for j := range viaLB {
			if j >= len(got) || viaLB[j] != got[j] {
				t.Fatalf("answer %d differs:\n via round-robin %s\n backend %d alone %v", j, viaLB[j], i, got)
			}
		}
	}
	for i, n := range rr.Hits() {
		if n < minHits {
			t.Fatalf("round-robin hits %v: backend %d served %d requests, want at least %d", rr.Hits(), i, n, minHits)
		}
	}
}

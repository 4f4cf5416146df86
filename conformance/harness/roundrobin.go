package harness

import (
	"io"
	"log"
	"net/http"
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

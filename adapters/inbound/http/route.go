package httplistener

import (
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/hoophq/sidecar/app"
)

// route is what forwarding under one settings value needs: the parsed
// upstream URL and the kept-alive transport, or the error that makes the
// upstream unusable. Settings values are immutable (a reload swaps in a new
// one), so a route is computed once per settings value instead of once per
// request.
type route struct {
	settings *app.ListenerSettings
	target   *url.URL // read only: ReverseProxy and logs never modify it
	tr       *http.Transport
	// parts is target read for the relay (relay.go), for an http:// target.
	parts  *urlParts
	urlErr error // the upstream does not parse
	trErr  error // the upstream TLS settings do not load
}

// routes caches the route of a listener's current settings.
type routes struct {
	p   *Protocol
	cur atomic.Pointer[route]
}

// get returns the route for settings s, computing it when s is not the
// settings value of the cached route (first request, or after a reload) or
// when the cached route's TLS settings did not load (files are read again on
// the next request, as without the cache). Concurrent first requests may
// each compute it; they get equal routes (the transport is shared through
// Protocol.transport).
func (rs *routes) get(s *app.ListenerSettings) *route {
	if r := rs.cur.Load(); r != nil && r.settings == s && r.trErr == nil {
		return r
	}
	r := &route{settings: s}
	r.target, r.urlErr = upstreamURL(s)
	if r.urlErr == nil && r.target.Scheme == "http" {
		r.parts = &urlParts{host: r.target.Host, addr: upstreamAddr(r.target), path: r.target.EscapedPath(),
			query: r.target.RawQuery}
	}
	if r.urlErr == nil {
		r.tr, r.trErr = rs.p.transport(s.UpstreamTLS, false)
	}
	rs.cur.Store(r)
	return r
}

// proxyBuffers lends the 32 KiB buffers that ReverseProxy copies response
// bodies through, so a request does not allocate one of its own.
type proxyBuffers struct{ pool sync.Pool }

const proxyBufferSize = 32 << 10

// Get returns a buffer of proxyBufferSize bytes.
func (b *proxyBuffers) Get() []byte {
	if p, ok := b.pool.Get().(*[]byte); ok {
		return *p
	}
	return make([]byte, proxyBufferSize)
}

// Put takes back a buffer from Get.
func (b *proxyBuffers) Put(buf []byte) {
	if cap(buf) == proxyBufferSize {
		buf = buf[:proxyBufferSize]
		b.pool.Put(&buf)
	}
}

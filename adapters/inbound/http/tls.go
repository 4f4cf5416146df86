package httplistener

import (
	"crypto/tls"
	"net/http"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// maxIdlePerUpstream is how many idle kept-alive connections a transport
// keeps per upstream host, ready for the next request.
const maxIdlePerUpstream = 256

// transportKey picks one of the shared transports.
type transportKey struct {
	tls app.TLSClient
	// once: a new connection per request, so the transport never replays
	// the request on another connection (a statement that used an approval
	// runs once even if the upstream drops a kept-alive connection).
	once bool
}

// transport returns the shared transport towards upstreams with TLS settings
// t. It speaks HTTP/1.1 only, so upgrades (WebSocket, SPDY for kubectl exec
// and port-forward) always work, never decompresses (bodies pass untouched)
// and ignores proxy environment variables (the upstream is dialled directly).
// With once, every request gets its own connection, which Go's transport
// never retries. Kept-alive transports keep up to maxIdlePerUpstream idle
// connections per upstream (Go's default of 2 would close and redial most
// connections under concurrent load).
func (p *Protocol) transport(t app.TLSClient, once bool) (*http.Transport, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := transportKey{t, once}
	if tr, ok := p.transports[key]; ok {
		return tr, nil
	}
	cfg, err := tlsconf.Client(t, "")
	if err == nil {
		cfg.NextProtos = []string{"http/1.1"}
	}
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.ForceAttemptHTTP2 = false
	tr.TLSClientConfig = cfg
	tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	tr.DisableCompression = true
	tr.ResponseHeaderTimeout = 0
	tr.IdleConnTimeout = 90 * time.Second
	tr.MaxIdleConns = 0 // no overall cap; maxIdlePerUpstream bounds each upstream
	tr.MaxIdleConnsPerHost = maxIdlePerUpstream
	tr.DisableKeepAlives = once
	p.transports[key] = tr
	return tr, nil
}

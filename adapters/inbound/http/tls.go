package httplistener

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/hoophq/sidecar/app"
)

// certLoader serves the listener's certificate from its current TLS settings,
// loading the files again when a reload names other files.
type certLoader struct {
	l *app.Listener

	mu   sync.Mutex
	key  app.TLSServer
	cert *tls.Certificate
}

// get is a tls.Config.GetCertificate. Errors name the files that failed.
func (c *certLoader) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	want := c.l.Settings().TLS
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cert != nil && c.key == want {
		return c.cert, nil
	}
	cert, err := tls.LoadX509KeyPair(want.CertFile, want.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("listener tls: load %s / %s: %w", want.CertFile, want.KeyFile, err)
	}
	c.key, c.cert = want, &cert
	return c.cert, nil
}

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
// never retries.
func (p *Protocol) transport(t app.TLSClient, once bool) (*http.Transport, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := transportKey{t, once}
	if tr, ok := p.transports[key]; ok {
		return tr, nil
	}
	cfg, err := clientTLS(t)
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
	tr.DisableKeepAlives = once
	p.transports[key] = tr
	return tr, nil
}

// clientTLS builds the TLS configuration towards the upstream: the CA file
// (else the system roots), the server name, the client certificate, and
// insecure_skip_verify as configured.
func clientTLS(t app.TLSClient) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify, //nolint:gosec // user's choice
		MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("upstream tls: read ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("upstream tls: ca_file %s holds no PEM certificate", t.CAFile)
		}
		cfg.RootCAs = pool
	}
	if t.CertFile != "" || t.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("upstream tls: load client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

package grpclistener

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"sync"

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

// clientTLS builds the TLS configuration towards the upstream: the CA file
// (else the system roots), the server name, the client certificate, and
// insecure_skip_verify as configured. ALPN h2 is added by gRPC.
func clientTLS(t app.TLSClient) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify, //nolint:gosec // user's choice
		MinVersion: tls.VersionTLS12}
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

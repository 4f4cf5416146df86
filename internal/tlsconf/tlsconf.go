// Package tlsconf builds the TLS configurations every listener protocol
// needs from the listener's settings: the client side towards an upstream
// (app.TLSClient) and a certificate source for the listener's own side
// (app.TLSServer) that follows reloads.
package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"sync"

	"github.com/hoophq/sidecar/app"
)

// Client builds the TLS configuration towards an upstream: the CA file (else
// the system roots), the server name (else the host of addr, when addr is
// not empty), the client certificate, and insecure_skip_verify as
// configured; TLS 1.2 at least. Callers add their ALPN protocols. Errors
// name the file that failed.
func Client(t app.TLSClient, addr string) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify, //nolint:gosec // the user's choice
		MinVersion: tls.VersionTLS12}
	if cfg.ServerName == "" && addr != "" {
		if host, _, err := net.SplitHostPort(addr); err == nil {
			cfg.ServerName = host
		}
	}
	if t.CAFile != "" {
		pool, err := pool(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("upstream tls: ca_file: %w", err)
		}
		cfg.RootCAs = pool
	}
	if t.CertFile != "" || t.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("upstream tls: load client certificate %s / %s: %w", t.CertFile, t.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// CertLoader serves a listener's certificate from its current settings,
// loading the files again when a reload names other files. Use Get as a
// tls.Config.GetCertificate.
type CertLoader struct {
	l *app.Listener

	mu   sync.Mutex
	key  app.TLSServer
	cert *tls.Certificate
}

// NewCertLoader returns a CertLoader for l's TLS settings.
func NewCertLoader(l *app.Listener) *CertLoader { return &CertLoader{l: l} }

// Config returns the listener side's TLS configuration: the certificate
// from Get at every handshake, TLS 1.2 at least, and the ALPN protocols alpn
// (none: the caller's library adds its own, as gRPC does).
func (c *CertLoader) Config(alpn ...string) *tls.Config {
	return &tls.Config{GetCertificate: c.Get, NextProtos: alpn, MinVersion: tls.VersionTLS12}
}

// Pinned is Config with the certificate that Get returns now fixed for every
// handshake of the returned configuration, for a protocol that must know
// which certificate its client saw (PostgreSQL's SCRAM channel binding,
// tls-server-end-point, compares it with the upstream's). Errors as Get.
func (c *CertLoader) Pinned(alpn ...string) (*tls.Config, error) {
	cert, err := c.Get(nil)
	if err != nil {
		return nil, err
	}
	cfg := c.Config(alpn...)
	cfg.GetCertificate, cfg.Certificates = nil, []tls.Certificate{*cert}
	return cfg, nil
}

// Get returns the certificate of the listener's current cert_file/key_file.
// Errors name the files that failed.
func (c *CertLoader) Get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	want := c.l.Settings().TLS
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cert != nil && c.key == want {
		return c.cert, nil
	}
	cert, err := LoadServer(want)
	if err != nil {
		return nil, err
	}
	c.key, c.cert = want, cert
	return c.cert, nil
}

// LoadServer loads a listener's certificate and key (t.CertFile,
// t.KeyFile). The supervisor calls it before it binds a listener, so a
// certificate that does not load refuses the start or the reload instead of
// leaving a bound port that cannot offer TLS. Errors name the files.
func LoadServer(t app.TLSServer) (*tls.Certificate, error) {
	cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("listener tls: load %s / %s: %w", t.CertFile, t.KeyFile, err)
	}
	if t.ClientCAFile != "" {
		if _, err := ClientCAs(t); err != nil {
			return nil, err
		}
	}
	return &cert, nil
}

// LoadX509Logins loads the upstream certificate of each X.509 login, so
// that one which does not load refuses the start or the reload instead of
// every login of that client. Errors name the files and the subject.
func LoadX509Logins(logins []app.X509Login) error {
	for _, x := range logins {
		if _, err := tls.LoadX509KeyPair(x.CertFile, x.KeyFile); err != nil {
			return fmt.Errorf("x509_logins %q: load %s / %s: %w", x.Subject, x.CertFile, x.KeyFile, err)
		}
	}
	return nil
}

// ClientCAs returns the pool of a listener's client_ca_file, the CAs a
// client certificate is verified against (nil when none is configured).
// Errors name the file.
func ClientCAs(t app.TLSServer) (*x509.CertPool, error) {
	if t.ClientCAFile == "" {
		return nil, nil
	}
	p, err := pool(t.ClientCAFile)
	if err != nil {
		return nil, fmt.Errorf("listener tls: client_ca_file: %w", err)
	}
	return p, nil
}

// pool reads a PEM file of CA certificates.
func pool(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", file)
	}
	return p, nil
}

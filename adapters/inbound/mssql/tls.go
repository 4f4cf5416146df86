package mssql

import (
	"crypto/tls"
	"net"
	"sync"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tds/tdstls"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// Encryption (MS-TDS 2.2.6.5, internal/tds/tdstls; docs/mssql-encryption.md
// explains the modes, docs/mssql-listener.md what the listener does).
//
// Client leg: the listener answers as a SQL Server set to "off" does: a
// client that asks for nothing (ENCRYPT_NOT_SUP) is served in clear, one
// that sends ENCRYPT_OFF gets its LOGIN7 under TLS (login only), one that
// sends ENCRYPT_ON/REQ the whole session under TLS, and a TDS 8.0 client TLS
// from the first byte. No client that asked for encryption is ever answered
// ENCRYPT_NOT_SUP. The certificate is the listener's `tls:` one; without
// it, a self-signed certificate made once per process (SQL Server's
// "self-signed fallback"), whose fingerprint is logged.
//
// Upstream leg: with `upstream_tls.enabled`, the whole session under TLS,
// verified per upstream_tls (ca_file, server_name), and never a downgrade.
// Without it, the listener asks what go-mssqldb's default asks
// (ENCRYPT_OFF): the client's LOGIN7 (its password) goes under TLS whenever
// the upstream offers TLS, and the session is encrypted when the upstream
// requires it; the upstream's certificate is then not verified.

// clientTLS returns the negotiator of the client leg for one connection.
func (p *Protocol) clientTLS(t app.TLSServer, certs *tlsconf.CertLoader) (*tdstls.Server, error) {
	if t.Enabled() {
		cfg, err := certs.Pinned()
		if err != nil {
			return nil, err
		}
		return &tdstls.Server{Setting: tdstls.Off, Config: cfg}, nil
	}
	cfg, err := p.fallbackTLS()
	if err != nil {
		return nil, err
	}
	return &tdstls.Server{Setting: tdstls.Off, Config: cfg}, nil
}

// fallbackTLS returns the self-signed certificate's configuration, made on
// first use.
func (p *Protocol) fallbackTLS() (*tls.Config, error) {
	p.selfOnce.Do(func() {
		cert, fp, err := tdstls.SelfSigned()
		if err != nil {
			p.selfErr = err
			return
		}
		p.Log().Warn("mssql listener without a tls certificate: clients that ask for encryption get a self-signed one (they must trust it, e.g. TrustServerCertificate=true); configure tls to give clients proof of the Sidecar",
			"sha256", fp)
		p.self = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	})
	return p.self, p.selfErr
}

// upstreamTLS returns the negotiator of the upstream leg towards addr.
func upstreamTLS(t app.TLSClient, addr string) (*tdstls.Client, error) {
	if t.Enabled {
		cfg, err := tlsconf.Client(t, addr)
		if err != nil {
			return nil, err
		}
		return &tdstls.Client{Setting: tdstls.On, Config: cfg}, nil
	}
	host, _, _ := net.SplitHostPort(addr)
	// Login-only TLS protects the client's password from passive
	// observers; without upstream_tls nothing says which certificate is
	// the upstream's, so it is not verified (docs/mssql-listener.md).
	cfg := &tls.Config{ServerName: host, InsecureSkipVerify: true, MinVersion: tls.VersionTLS12} //nolint:gosec // documented: no upstream_tls, no identity to verify
	return &tdstls.Client{Setting: tdstls.Off, Config: cfg}, nil
}

// selfSigned holds the fallback certificate's state (protocol.go embeds it).
type selfSigned struct {
	selfOnce sync.Once
	self     *tls.Config
	selfErr  error
}

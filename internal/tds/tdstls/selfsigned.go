package tdstls

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"time"
)

// SelfSigned makes the certificate a TDS server uses when it must encrypt
// and has none configured, as SQL Server does at start-up (its
// "self-signed fallback" certificate): an ECDSA P-256 key, names hosts (DNS
// names or IP addresses; "localhost" when empty), valid from an hour ago
// for a year, server-auth usage. Clients accept it only with
// TrustServerCertificate (or an explicit pin), which is the point: the
// session is encrypted against eavesdroppers, not authenticated. The
// SHA-256 fingerprint of the certificate is returned for the caller's log
// line. Errors: key generation or signing (crypto/rand failures).
func SelfSigned(hosts ...string) (cert tls.Certificate, fingerprint string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("tdstls: self-signed key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("tdstls: self-signed serial: %w", err)
	}
	if len(hosts) == 0 {
		hosts = []string{"localhost"}
	}
	tmpl := &x509.Certificate{SerialNumber: serial,
		Subject:   pkix.Name{CommonName: hosts[0], Organization: []string{"hoop sidecar self-signed fallback"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().AddDate(1, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("tdstls: self-signed certificate: %w", err)
	}
	sum := sha256.Sum256(der)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, fmt.Sprintf("%X", sum[:]), nil
}

package testcert

import (
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// Write writes a self-signed ECDSA P-256 server certificate for name into
// dir as name+".crt" (PEM CERTIFICATE, mode 0644) and name+".key" (PEM EC
// PRIVATE KEY, mode 0600), and returns the two paths. The certificate has
// common name and DNS name name, IP address 127.0.0.1, server-auth usage,
// is valid from an hour ago for 24 hours, and is its own CA, so its
// certificate file also serves as the ca_file or root pool that trusts it.
// Any failure ends the test.
func Write(t testing.TB, dir, name string) (certFile, keyFile string) {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: serial(t), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{name}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	writePEM(t, certFile, "CERTIFICATE", der, 0o644)
	writePEM(t, keyFile, "EC PRIVATE KEY", kder, 0o600)
	return certFile, keyFile
}

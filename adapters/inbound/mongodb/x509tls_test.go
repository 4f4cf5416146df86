package mongodb

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hoophq/sidecar/internal/testcert"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// With tls.client_ca_file, the handshake refuses a client certificate the
// listener must not take as an X.509 user: expired, not yet valid, made
// for server authentication only, or issued by another CA. A client with
// none gets through the handshake with no subject (it cannot log in with
// X.509); a valid certificate's subject is the one read from it.
func TestX509HandshakeRefusesUnfitCertificates(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := selfSignedCA(t, dir, "agents")
	other, otherKey := selfSignedCA(t, dir, "other")
	l := testListener(t)
	set := *l.Settings()
	set.TLS.CertFile, set.TLS.KeyFile = testcert.Write(t, dir, "localhost")
	set.TLS.ClientCAFile = filepath.Join(dir, "agents-ca.crt")
	l.Update(set)
	certs := tlsconf.NewCertLoader(l)
	client := x509.ExtKeyUsageClientAuth
	now := time.Now()
	for _, tc := range []struct {
		name    string
		cert    *tls.Certificate
		subject string // "" with ok: no certificate
		ok      bool
	}{
		{"valid", leaf(t, ca, caKey, now.Add(-time.Hour), now.Add(time.Hour), client), "CN=agent-1,O=example", true},
		{"no certificate", nil, "", true},
		{"expired", leaf(t, ca, caKey, now.Add(-2*time.Hour), now.Add(-time.Hour), client), "", false},
		{"not yet valid", leaf(t, ca, caKey, now.Add(time.Hour), now.Add(2*time.Hour), client), "", false},
		{"server authentication only", leaf(t, ca, caKey, now.Add(-time.Hour), now.Add(time.Hour), x509.ExtKeyUsageServerAuth), "", false},
		{"another CA", leaf(t, other, otherKey, now.Add(-time.Hour), now.Add(time.Hour), client), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, cc := net.Pipe()
			defer sc.Close()
			defer cc.Close()
			srv, err := serverTLS(sc, l.Settings().TLS, certs)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- srv.(*tls.Conn).Handshake() }()
			cfg := &tls.Config{InsecureSkipVerify: true}
			if tc.cert != nil {
				// Sent whatever CAs the listener names (a Go client with
				// Certificates would send none from another CA).
				cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return tc.cert, nil }
			}
			tcli := tls.Client(cc, cfg)
			_ = tcli.Handshake()
			go io.Copy(io.Discard, tcli) // the server's alert, when it refuses
			err = <-done
			if tc.ok != (err == nil) {
				t.Fatalf("server handshake error %v, want ok=%v", err, tc.ok)
			}
			if tc.ok {
				if got := clientCertificate(srv, l.Settings()).subject; got != tc.subject {
					t.Fatalf("subject %q, want %q", got, tc.subject)
				}
			}
		})
	}
}

func selfSignedCA(t *testing.T, dir, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	cert, key := issue(t, &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name + " CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}, nil, nil)
	if err := os.WriteFile(filepath.Join(dir, name+"-ca.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func leaf(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, from, to time.Time, eku x509.ExtKeyUsage) *tls.Certificate {
	t.Helper()
	cert, key := issue(t, &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "agent-1", Organization: []string{"example"}},
		NotBefore: from, NotAfter: to, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{eku}}, ca, caKey)
	return &tls.Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key}
}

// issue makes a certificate from tmpl with a new P-256 key, signed by
// parent (self-signed when parent is nil).
func issue(t *testing.T, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

package grpclistener_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/credentials"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/conformance/grpc/upstream"
)

// testCA is a throwaway CA that issues server certificates for a name.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
	file string // PEM of the CA certificate
}

func newCA(t *testing.T) *testCA {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	file := filepath.Join(t.TempDir(), "ca.pem")
	writePEM(t, file, "CERTIFICATE", der)
	return &testCA{cert: cert, key: key, pool: pool, file: file}
}

// issue returns a server certificate for name (and 127.0.0.1) and its PEM files.
func (ca *testCA) issue(t *testing.T, name string) (tls.Certificate, string, string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		DNSNames: []string{name}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "EC PRIVATE KEY", kder)
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return pair, certFile, keyFile
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TLS on both sides: a client speaks TLS to the listener, the listener
// speaks TLS to the upstream, verifying it with ca_file and server_name.
func TestTLSBothSides(t *testing.T) {
	ca := newCA(t)
	upCert, _, _ := ca.issue(t, "upstream.test")
	up := upstream.Start(t, upstream.Options{TLS: &tls.Config{Certificates: []tls.Certificate{upCert}}})
	_, lnCert, lnKey := ca.issue(t, "sidecar.test")

	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr,
		TLS:         app.TLSServer{CertFile: lnCert, KeyFile: lnKey},
		UpstreamTLS: app.TLSClient{Enabled: true, CAFile: ca.file, ServerName: "upstream.test"}})
	c := probeClient(t, addr, credentials.NewTLS(&tls.Config{RootCAs: ca.pool, ServerName: "sidecar.test"}))
	if r, _, err := unary(t, c, "tls"); err != nil || r.GetText() != "hello tls" {
		t.Fatalf("call over TLS: %v %v", r, err)
	}

	// A plaintext (h2c) upstream setting against the TLS upstream fails the
	// call with UNAVAILABLE rather than hanging.
	addr2, _ := sc.serve(t, app.ListenerSettings{Name: "h2c", Upstream: up.Addr})
	if _, _, err := unary(t, probeClient(t, addr2, nil), "x"); err == nil {
		t.Fatal("h2c to a TLS upstream succeeded")
	}
	// Wrong server name: the upstream's certificate is refused.
	addr3, _ := sc.serve(t, app.ListenerSettings{Name: "bad", Upstream: up.Addr,
		UpstreamTLS: app.TLSClient{Enabled: true, CAFile: ca.file, ServerName: "other.test"}})
	if _, _, err := unary(t, probeClient(t, addr3, nil), "x"); err == nil {
		t.Fatal("an upstream certificate for another name was accepted")
	}
	if n := up.Count("Unary"); n != 1 {
		t.Errorf("upstream saw %d calls, want 1", n)
	}
}

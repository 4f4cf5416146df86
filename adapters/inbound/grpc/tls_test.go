package grpclistener_test

import (
	"crypto/tls"
	"crypto/x509"
	"testing"

	"google.golang.org/grpc/credentials"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/conformance/grpc/upstream"
	"github.com/hoophq/sidecar/internal/testcert"
)

// serverCert writes a self-signed certificate for name (and 127.0.0.1) with
// testcert and returns the loaded pair, its PEM files and a pool trusting it.
func serverCert(t *testing.T, name string) (tls.Certificate, string, string, *x509.CertPool) {
	t.Helper()
	certFile, keyFile := testcert.Write(t, t.TempDir(), name)
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return pair, certFile, keyFile, pool
}

// TLS on both sides: a client speaks TLS to the listener, the listener
// speaks TLS to the upstream, verifying it with ca_file and server_name.
func TestTLSBothSides(t *testing.T) {
	upCert, upCAFile, _, _ := serverCert(t, "upstream.test")
	up := upstream.Start(t, upstream.Options{TLS: &tls.Config{Certificates: []tls.Certificate{upCert}}})
	_, lnCert, lnKey, lnPool := serverCert(t, "sidecar.test")

	sc := newSidecar(true)
	addr, _ := sc.serve(t, app.ListenerSettings{Name: "g", Upstream: up.Addr,
		TLS:         app.TLSServer{CertFile: lnCert, KeyFile: lnKey},
		UpstreamTLS: app.TLSClient{Enabled: true, CAFile: upCAFile, ServerName: "upstream.test"}})
	c := probeClient(t, addr, credentials.NewTLS(&tls.Config{RootCAs: lnPool, ServerName: "sidecar.test"}))
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
		UpstreamTLS: app.TLSClient{Enabled: true, CAFile: upCAFile, ServerName: "other.test"}})
	if _, _, err := unary(t, probeClient(t, addr3, nil), "x"); err == nil {
		t.Fatal("an upstream certificate for another name was accepted")
	}
	if n := up.Count("Unary"); n != 1 {
		t.Errorf("upstream saw %d calls, want 1", n)
	}
}

package tlsconf_test

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"os"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/testcert"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// writePair writes a self-signed certificate named cn into dir.
func writePair(t *testing.T, dir, cn string) app.TLSServer {
	t.Helper()
	certFile, keyFile := testcert.Write(t, dir, cn)
	return app.TLSServer{CertFile: certFile, KeyFile: keyFile}
}

func commonName(t *testing.T, c *tls.Certificate) string {
	t.Helper()
	x, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return x.Subject.CommonName
}

// The key pair is read once per cert_file/key_file, not per handshake: with
// the files gone the loaded pair is still served; a reload that names
// other files loads those.
func TestCertLoaderLoadsOncePerFiles(t *testing.T) {
	dir := t.TempDir()
	first, second := writePair(t, dir, "first"), writePair(t, dir, "second")
	l := app.NewListener(app.ListenerSettings{Name: "l", TLS: first}, nil, nil)
	c := tlsconf.NewCertLoader(l)
	got, err := c.Get(nil)
	if err != nil || commonName(t, got) != "first" {
		t.Fatalf("first Get: %v %v", got, err)
	}
	if err := os.Remove(first.CertFile); err != nil {
		t.Fatal(err)
	}
	if again, err := c.Get(nil); err != nil || again != got {
		t.Fatalf("Get after the file went: %v, %v; want the loaded pair", again, err)
	}
	l.Update(app.ListenerSettings{Name: "l", TLS: second})
	if got, err := c.Get(nil); err != nil || commonName(t, got) != "second" {
		t.Fatalf("Get after a reload to other files: %v %v", got, err)
	}
	l.Update(app.ListenerSettings{Name: "l", TLS: first})
	if _, err := c.Get(nil); err == nil || !strings.Contains(err.Error(), first.CertFile) {
		t.Fatalf("Get of a missing file: %v, want an error naming it", err)
	}
}

func TestConfigAndPinned(t *testing.T) {
	dir := t.TempDir()
	first, second := writePair(t, dir, "first"), writePair(t, dir, "second")
	l := app.NewListener(app.ListenerSettings{Name: "l", TLS: first}, nil, nil)
	c := tlsconf.NewCertLoader(l)
	cfg := c.Config("postgresql")
	if cfg.MinVersion != tls.VersionTLS12 || len(cfg.NextProtos) != 1 || cfg.NextProtos[0] != "postgresql" || cfg.GetCertificate == nil {
		t.Fatalf("Config: %+v", cfg)
	}
	pinned, err := c.Pinned("postgresql")
	if err != nil || pinned.GetCertificate != nil || len(pinned.Certificates) != 1 || commonName(t, &pinned.Certificates[0]) != "first" {
		t.Fatalf("Pinned: %+v %v", pinned, err)
	}
	l.Update(app.ListenerSettings{Name: "l", TLS: second})
	if commonName(t, &pinned.Certificates[0]) != "first" {
		t.Fatal("a pinned configuration changed with a reload")
	}
	if got, _ := cfg.GetCertificate(nil); commonName(t, got) != "second" {
		t.Fatal("Config did not follow the reload")
	}
}

// A listener's client_ca_file that does not load refuses the listener
// (LoadServer), naming the file; one that loads gives the pool client
// certificates are verified against. An X.509 login whose upstream
// certificate does not load is refused, naming the subject.
func TestClientCAsAndX509Logins(t *testing.T) {
	dir := t.TempDir()
	srv := writePair(t, dir, "listener")
	ca := testcert.NewCA(t, dir, "agents")
	srv.ClientCAFile = ca.CertFile
	if _, err := tlsconf.LoadServer(srv); err != nil {
		t.Fatal(err)
	}
	if pool, err := tlsconf.ClientCAs(srv); err != nil || pool == nil {
		t.Fatalf("client CAs: %v %v", pool, err)
	}
	srv.ClientCAFile = srv.KeyFile // a key, no certificate
	if _, err := tlsconf.LoadServer(srv); err == nil || !strings.Contains(err.Error(), "client_ca_file") || !strings.Contains(err.Error(), srv.KeyFile) {
		t.Fatalf("a client_ca_file without a certificate: %v", err)
	}
	cert, key, _ := ca.Client(t, dir, "up", pkix.Name{CommonName: "up"})
	if err := tlsconf.LoadX509Logins([]app.X509Login{{Subject: "CN=a", CertFile: cert, KeyFile: key}}); err != nil {
		t.Fatal(err)
	}
	err := tlsconf.LoadX509Logins([]app.X509Login{{Subject: "CN=b", CertFile: cert, KeyFile: dir + "/missing.key"}})
	if err == nil || !strings.Contains(err.Error(), `"CN=b"`) {
		t.Fatalf("a login whose key is missing: %v", err)
	}
}

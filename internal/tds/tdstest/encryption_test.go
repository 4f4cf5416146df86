package tdstest_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
	"github.com/hoophq/sidecar/internal/tds/tdstls"
	"github.com/hoophq/sidecar/internal/testcert"
)

// TestGoMSSQLDBEncryption runs go-mssqldb v1.11.2 in each of its encrypt
// modes against the server in each encryption setting, and checks the
// outcome both sides agree on, per MS-TDS 2.2.6.5 (tdstls.Negotiate). The
// server's certificate comes from internal/testcert; the client trusts it
// either as its CA (certificate=) or with TrustServerCertificate.
func TestGoMSSQLDBEncryption(t *testing.T) {
	dir := t.TempDir()
	cert, certFile := loadCert(t, dir, "localhost")
	otherCA, _ := testcert.Write(t, dir, "other")
	// go-mssqldb reads certificate= by extension: .pem or .der.
	certFile, otherCA = pemCopy(t, certFile), pemCopy(t, otherCA)
	const (
		trust = "&TrustServerCertificate=true"
	)
	ca := "&certificate=" + url.QueryEscape(certFile)
	cases := []struct {
		server tdstls.Setting
		params string
		want   tdstls.Outcome
		fail   string // part of go-mssqldb's error when the connection must fail
	}{
		{tdstls.NotSupported, "encrypt=disable", tdstls.Plain, ""},
		{tdstls.Off, "encrypt=disable", tdstls.Plain, ""},
		// A server that requires TLS answers ENCRYPT_REQ; go-mssqldb then
		// runs the handshake but verifies with the system roots only
		// (encrypt=disable takes no certificate options): refused.
		{tdstls.Required, "encrypt=disable", 0, "certificate"},
		{tdstls.NotSupported, "encrypt=false" + trust, tdstls.Plain, ""},
		{tdstls.Off, "encrypt=false" + trust, tdstls.LoginOnly, ""},
		{tdstls.Off, "encrypt=false" + ca, tdstls.LoginOnly, ""},
		{tdstls.On, "encrypt=false" + trust, tdstls.Full, ""},
		{tdstls.Required, "encrypt=false" + trust, tdstls.Full, ""},
		// Asked for encryption, the server without TLS closes: never
		// ENCRYPT_NOT_SUP, never a plaintext session.
		{tdstls.NotSupported, "encrypt=true" + trust, 0, "EOF"},
		{tdstls.Off, "encrypt=true" + trust, tdstls.Full, ""},
		{tdstls.Off, "encrypt=true" + ca, tdstls.Full, ""},
		{tdstls.Off, "encrypt=true&certificate=" + url.QueryEscape(otherCA), 0, "certificate"},
		{tdstls.On, "encrypt=true" + ca, tdstls.Full, ""},
		{tdstls.Required, "encrypt=true" + ca, tdstls.Full, ""},
		{tdstls.Off, "encrypt=strict" + ca, tdstls.StrictTLS, ""},
		{tdstls.Strict, "encrypt=strict" + ca, tdstls.StrictTLS, ""},
		{tdstls.Strict, "encrypt=true" + ca, 0, "EOF"},
		{tdstls.NotSupported, "encrypt=strict" + ca, 0, "TLS Handshake failed"},
	}
	for _, c := range cases {
		name := strings.NewReplacer(ca, "&ca", "&certificate="+url.QueryEscape(otherCA), "&other-ca", trust, "&trust").Replace(c.params)
		t.Run(fmt.Sprintf("%v/%s", c.server, name), func(t *testing.T) {
			srv := &tdstest.Server{Encryption: c.server, TLS: &tls.Config{Certificates: []tls.Certificate{cert}}}
			srv.OnBatch = func(b *tds.SQLBatch) []byte {
				return tdstest.ResultSet([]tds.Column{tdstest.NVarCharColumn("")},
					[][][]byte{{tdstest.NVarChar(strings.TrimSpace(b.Text))}}, tds.TokenDone, false)
			}
			dsn := fmt.Sprintf("sqlserver://hoopuser:S3cret%%21pw@%s?database=hoopdb&dial+timeout=5&%s", srv.Start(t), c.params)
			db, err := sql.Open("sqlserver", dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var echo string
			err = db.QueryRowContext(context.Background(), "SELECT 'under tls?'").Scan(&echo)
			if c.fail != "" {
				if err == nil || !strings.Contains(err.Error(), c.fail) {
					t.Fatalf("error %v, want one containing %q", err, c.fail)
				}
				for _, o := range srv.Outcomes() {
					if o == tdstls.Plain && strings.Contains(c.params, "encrypt=true") {
						t.Fatalf("a client that asked for encryption got a plaintext session")
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if echo != "SELECT 'under tls?'" {
				t.Fatalf("echo %q", echo)
			}
			if got := srv.Outcomes(); len(got) != 1 || got[0] != c.want {
				t.Fatalf("outcomes %v, want [%v]", got, c.want)
			}
			if l := srv.Logins(); len(l) != 1 || l[0].Password != "S3cret!pw" {
				t.Fatalf("LOGIN7 not read: %+v", l)
			}
		})
	}
}

func pemCopy(t *testing.T, crt string) string {
	t.Helper()
	b, err := os.ReadFile(crt)
	if err != nil {
		t.Fatal(err)
	}
	p := strings.TrimSuffix(crt, ".crt") + ".pem"
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLargeHandshakeFlight: a certificate chain larger than a 4096-byte
// packet makes the server's first handshake flight span several PRELOGIN
// packets (EOM on the last only); go-mssqldb and FreeTDS reassemble it.
func TestLargeHandshakeFlight(t *testing.T) {
	dir := t.TempDir()
	cert, certFile := loadCert(t, dir, "localhost")
	for i := range 24 { // unrelated certificates sent as "intermediates"
		more, _ := loadCert(t, dir, fmt.Sprintf("filler%d", i))
		cert.Certificate = append(cert.Certificate, more.Certificate[0])
	}
	if n := len(bytes.Join(cert.Certificate, nil)); n < 2*tds.DefaultPacketSize {
		t.Fatalf("chain of %d bytes is too small for the test", n)
	}
	srv := &tdstest.Server{Encryption: tdstls.Required, TLS: &tls.Config{Certificates: []tls.Certificate{cert}}}
	srv.OnBatch = func(*tds.SQLBatch) []byte {
		return tdstest.ResultSet([]tds.Column{tdstest.IntColumn("n")}, [][][]byte{{tdstest.Int4(42)}}, tds.TokenDone, false)
	}
	addr := srv.Start(t)
	db, err := sql.Open("sqlserver", fmt.Sprintf("sqlserver://u:pw@%s?encrypt=true&certificate=%s", addr, url.QueryEscape(pemCopy(t, certFile))))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT 1").Scan(&n); err != nil || n != 42 {
		t.Fatalf("go-mssqldb: %d %v", n, err)
	}
	if tsql, err := exec.LookPath("tsql"); err == nil {
		// No ca file: GnuTLS refuses a chain padded with unrelated
		// certificates, which is this test's device, not the handshake.
		if out, err := tsqlSelect(t, tsql, dir, addr, "encryption = require"); err != nil || !strings.Contains(out, "42") {
			t.Fatalf("tsql: %v\n%s", err, out)
		}
	}
	if got := srv.Outcomes(); len(got) < 1 || got[0] != tdstls.Full {
		t.Fatalf("outcomes %v", got)
	}
}

// loadCert writes a testcert certificate for name into dir and returns it
// loaded, with the path of its certificate file (its own CA).
func loadCert(t *testing.T, dir, name string) (tls.Certificate, string) {
	t.Helper()
	certFile, keyFile := testcert.Write(t, dir, name)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return cert, certFile
}

// TestSelfSignedFallback: a server without a configured certificate makes
// one (tdstls.SelfSigned), as SQL Server does; go-mssqldb accepts it only
// with TrustServerCertificate.
func TestSelfSignedFallback(t *testing.T) {
	srv := &tdstest.Server{Encryption: tdstls.Off}
	srv.OnBatch = func(*tds.SQLBatch) []byte {
		return tdstest.ResultSet([]tds.Column{tdstest.IntColumn("n")}, [][][]byte{{tdstest.Int4(42)}}, tds.TokenDone, false)
	}
	addr := srv.Start(t)
	for params, ok := range map[string]bool{"encrypt=true&TrustServerCertificate=true": true, "encrypt=true": false} {
		db, err := sql.Open("sqlserver", fmt.Sprintf("sqlserver://u:pw@%s?%s", addr, params))
		if err != nil {
			t.Fatal(err)
		}
		var n int
		err = db.QueryRow("SELECT 1").Scan(&n)
		db.Close()
		if ok && (err != nil || n != 42) {
			t.Errorf("%s: %d %v", params, n, err)
		}
		if !ok && (err == nil || !strings.Contains(err.Error(), "certificate")) {
			t.Errorf("%s: error %v, want a certificate error", params, err)
		}
	}
}

package tdstest_test

import (
	"context"
	"crypto/tls"
	"database/sql"
	"fmt"
	"net/url"
	"os"
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
	certFile, keyFile := testcert.Write(t, dir, "localhost")
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
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
		t.Run(fmt.Sprintf("%v/%s", c.server, strings.SplitN(c.params, "&certificate", 2)[0]), func(t *testing.T) {
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

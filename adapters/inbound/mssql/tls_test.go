package mssql

import (
	"context"
	"crypto/tls"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
	"github.com/hoophq/sidecar/internal/tds/tdstls"
	"github.com/hoophq/sidecar/internal/testcert"
)

// go-mssqldb in each encrypt mode through the listener (its self-signed
// fallback certificate, trusted), in front of an upstream that offers no
// TLS and one that requires it: every mode logs in and is gated, and the
// upstream leg encrypts when the upstream requires it.
func TestGoMSSQLDBEncryptModes(t *testing.T) {
	for _, up := range []tdstls.Setting{tdstls.NotSupported, tdstls.Off, tdstls.Required} {
		f := newFixture(t, withUpstreamEncryption(up))
		for _, mode := range []string{"disable", "false", "true", "strict"} {
			t.Run(fmt.Sprintf("upstream_%s/encrypt_%s", up, mode), func(t *testing.T) {
				dsn := fmt.Sprintf("sqlserver://agent:pw@%s?database=hoopdb&encrypt=%s&TrustServerCertificate=true&app+name=%s",
					f.addr, mode, "hoop-approval%3Dreturn")
				db, err := sql.Open("sqlserver", dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				var one int
				err = db.QueryRowContext(context.Background(), "SELECT 1").Scan(&one)
				if mode == "strict" && err != nil {
					// go-mssqldb verifies the certificate in strict mode
					// whatever TrustServerCertificate says: the self-signed
					// fallback is refused, never downgraded.
					t.Logf("strict against the self-signed fallback: %v", err)
					return
				}
				if err != nil || one != 1 {
					t.Fatalf("SELECT 1: %d %v", one, err)
				}
				_, err = db.ExecContext(context.Background(), "DELETE FROM t")
				heldID(t, err)
			})
		}
		want := map[tdstls.Setting]tdstls.Outcome{tdstls.NotSupported: tdstls.Plain, tdstls.Off: tdstls.LoginOnly, tdstls.Required: tdstls.Full}[up]
		for _, o := range f.up.Outcomes() {
			if o != want {
				t.Errorf("upstream %s: the listener's leg negotiated %s, want %s", up, o, want)
			}
		}
	}
}

// With the listener's own certificate, go-mssqldb verifies it: encrypt=true
// and TDS 8.0 strict (ALPN tds/8.0) log in and are gated.
func TestListenerCertificateVerified(t *testing.T) {
	dir := t.TempDir()
	cert, key := testcert.Write(t, dir, "sidecar.test")
	pem := filepath.Join(dir, "ca.pem") // go-mssqldb reads .pem or .der
	b, err := os.ReadFile(cert)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pem, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, withTLS(cert, key))
	for _, mode := range []string{"true", "strict"} {
		dsn := fmt.Sprintf("sqlserver://agent:pw@%s?database=hoopdb&encrypt=%s&certificate=%s&app+name=hoop-approval%%3Dreturn",
			f.addr, mode, url.QueryEscape(pem))
		db, err := sql.Open("sqlserver", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var one int
		if err := db.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("encrypt=%s: %d %v", mode, one, err)
		}
		_, err = db.Exec("DELETE FROM t")
		heldID(t, err)
	}
}

// upstream_tls: the upstream leg is TLS verified against ca_file; an
// upstream that offers no TLS is refused, never used in clear.
func TestUpstreamTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := testcert.Write(t, dir, "upstream.test")
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	upTLS := app.TLSClient{Enabled: true, CAFile: cert, ServerName: "upstream.test"}
	f := newFixture(t, withUpstreamTLS(upTLS), withUpstreamEncryption(tdstls.On), func(_ *app.ListenerSettings, _ *app.CoreOptions, up *tdstest.Server) {
		up.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	})
	var one int
	if err := f.conn("agent").QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 over upstream TLS: %v", err)
	}
	if o := f.up.Outcomes(); len(o) != 1 || o[0] != tdstls.Full {
		t.Fatalf("upstream leg: %v, want TLS", o)
	}
	plain := newFixture(t, withUpstreamTLS(upTLS))
	q := url.Values{"database": {"hoopdb"}, "encrypt": {"disable"}}
	db, _ := sql.Open("sqlserver", "sqlserver://agent:pw@"+plain.addr+"?"+q.Encode())
	defer db.Close()
	err = db.Ping()
	if err == nil || !strings.Contains(err.Error(), "cannot log in to the upstream database") {
		t.Fatalf("an upstream without TLS behind upstream_tls: %v", err)
	}
	if n := len(plain.up.Logins()); n != 0 {
		t.Fatalf("the upstream without TLS received %d logins", n)
	}
}

// A client that gives up in the TLS handshake inside PRELOGIN (go-mssqldb
// refusing the self-signed certificate just closes the socket) leaves a
// log line that says so: without it the operator sees nothing at all.
func TestClientLeavingTheHandshakeIsLogged(t *testing.T) {
	addr, buf := loggedListener(t, &tdstest.Server{Database: "hoopdb"})
	db, err := sql.Open("sqlserver", fmt.Sprintf("sqlserver://agent:pw@%s?encrypt=true", addr))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.PingContext(context.Background()); err == nil {
		t.Fatal("go-mssqldb accepted the self-signed certificate without TrustServerCertificate")
	}
	for range 400 {
		if strings.Contains(buf.String(), "during the TLS handshake") {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("nothing logged for the client that left the handshake:\n%s", buf.String())
}

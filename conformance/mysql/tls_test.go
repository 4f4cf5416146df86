package mysqlconf

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/internal/testcert"
)

// tlsFiles writes a throwaway certificate for 127.0.0.1 and returns its
// files and a root pool that trusts it.
func tlsFiles(t *testing.T) (cert, key string, pool *x509.CertPool) {
	t.Helper()
	cert, key = testcert.Write(t, t.TempDir(), "listener")
	pem, err := os.ReadFile(cert)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return cert, key, pool
}

// A listener with `tls:`: the mariadb CLI with --ssl and go-sql-driver with
// TLS (the test CA registered, as tls=true trusts the system's) log in over
// TLS and run the return-mode loop; the CLI reports the cipher in use.
func TestTLSFromClients(t *testing.T) {
	e := newEnv(t)
	cert, key, pool := tlsFiles(t)
	addr, _ := e.sidecar(listenerOpts{tls: fmt.Sprintf("    tls: {cert_file: %s, key_file: %s}\n", cert, key)})
	e.direct("CREATE TABLE t (id int)")

	out := e.cli(addr, "status\nDROP TABLE t;\n", "--ssl", "--ssl-ca="+cert)
	if !strings.Contains(out, "Cipher in use is") {
		t.Fatalf("the CLI's session is not TLS:\n%s", out)
	}
	if !strings.Contains(out, "ERROR 1227 (42000)") || len(approvalIDs(out)) != 1 {
		t.Fatalf("DROP over TLS was not held:\n%s", out)
	}

	mysql.RegisterTLSConfig("hoop-test", &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	c := e.conn(addr, "", func(c *mysql.Config) { c.TLSConfig = "hoop-test" })
	var one int
	if err := c.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("query over TLS: %v", err)
	}
	_, err := c.ExecContext(context.Background(), "DROP TABLE t")
	heldID(t, err)
}

// caching_sha2_password through the listener, against a caching_sha2
// upstream (the stand-in, reported as such): full authentication the first
// time for each user and the fast path the second, in each combination of
// TLS between client and listener and between listener and upstream; a
// wrong password is refused with the upstream's 1045.
func TestCachingSha2(t *testing.T) {
	e := newEnv(t)
	cert, key, pool := tlsFiles(t)
	mysql.RegisterTLSConfig("hoop-test-sha2", &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	srvCert, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	plainUp := startCachingSha2StandIn(t, nil, "plain_plain", "tls_plain")
	tlsUp := startCachingSha2StandIn(t, &tls.Config{Certificates: []tls.Certificate{srvCert}}, "plain_tls", "tls_tls")
	listenerTLS := fmt.Sprintf("    tls: {cert_file: %s, key_file: %s}\n", cert, key)
	plainAddr, _ := e.sidecar(listenerOpts{upstream: plainUp, tls: listenerTLS})
	tlsAddr, _ := e.sidecar(listenerOpts{upstream: tlsUp,
		tls: listenerTLS + fmt.Sprintf("    upstream_tls: {enabled: true, ca_file: %s, server_name: 127.0.0.1}\n", cert)})
	for _, c := range []struct {
		user, addr string
		clientTLS  bool
	}{
		{"plain_plain", plainAddr, false}, {"tls_plain", plainAddr, true},
		{"plain_tls", tlsAddr, false}, {"tls_tls", tlsAddr, true},
	} {
		for _, round := range []string{"full authentication", "fast path"} {
			db := e.connector(c.addr, "", func(m *mysql.Config) {
				m.User, m.Passwd, m.DBName = c.user, standInPassword, ""
				if c.clientTLS {
					m.TLSConfig = "hoop-test-sha2"
				}
			})
			var one int
			if err := db.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
				t.Fatalf("%s (client TLS %v), %s: %v", c.user, c.clientTLS, round, err)
			}
			db.Close()
		}
	}
	db := e.connector(plainAddr, "", func(m *mysql.Config) { m.User, m.Passwd, m.DBName = "plain_plain", "wrong", "" })
	myErr(t, db.Ping(), 1045)
}

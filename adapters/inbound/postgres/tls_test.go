package postgres

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/pem"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hoophq/sidecar/app"
)

// servedCert connects with sslmode=require and returns the certificate the
// listener presented.
func servedCert(t *testing.T, f *fixture) ([]byte, error) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, strings.Replace(f.url(""), "sslmode=disable", "sslmode=require", 1))
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	tc, ok := c.PgConn().Conn().(*tls.Conn)
	if !ok {
		t.Fatal("sslmode=require gave a connection without TLS")
	}
	return tc.ConnectionState().PeerCertificates[0].Raw, nil
}

func certDER(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	return blk.Bytes
}

// The listener's key pair is loaded once (internal/tlsconf, as on the http
// and grpc listeners), not from disk on every connection: with the files
// gone, clients still get TLS with it; a reload that names other files
// serves those to the next connection.
func TestClientTLSCertificateLoadedOncePerFiles(t *testing.T) {
	cert, key := writeCert(t, t.TempDir())
	f := newFixture(t, withTLS(cert, key))
	want := certDER(t, cert)
	if got, err := servedCert(t, f); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("first TLS connection: %v (same certificate: %v)", err, bytes.Equal(got, want))
	}
	if err := os.Remove(cert); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(key); err != nil {
		t.Fatal(err)
	}
	if got, err := servedCert(t, f); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("TLS connection after the files went: %v (same certificate: %v)", err, bytes.Equal(got, want))
	}
	cert2, key2 := writeCert(t, t.TempDir())
	s := f.set
	s.TLS = app.TLSServer{CertFile: cert2, KeyFile: key2}
	f.l.Update(s)
	if got, err := servedCert(t, f); err != nil || !bytes.Equal(got, certDER(t, cert2)) {
		t.Fatalf("TLS connection after a reload to other files: %v (new certificate: %v)", err, bytes.Equal(got, certDER(t, cert2)))
	}
}

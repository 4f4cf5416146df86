package mongodb

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/internal/testcert"
)

// x509Front is the stand-in upstream for MONGODB-X509 (FerretDB has no
// X.509 authentication): a front (front_test.go) that speaks TLS only,
// requires a client certificate verified against its CA (ca, as mongod
// with tlsCAFile and no tlsAllowConnectionsWithoutCertificates), answers
// authenticate {mechanism: "MONGODB-X509"} as mongod does (the user is the
// certificate's subject, RFC 2253; a "user" named must equal it; the
// subject must be one of users), refuses every other command but the
// handshake's with 13 Unauthorized until the connection has logged in, and
// relays the rest to target. It records each login's subject and counts
// hellos that carried a speculativeAuthenticate.
type x509Front struct {
	front[x509Conn]
	CertFile    string // its server certificate: the ca_file that trusts it (server name "x509front")
	Speculative atomic.Int64
	Refused     atomic.Int64 // commands refused before login

	users []string
	mu    sync.Mutex
	ins   []string // subjects logged in, in order
}

type x509Conn struct{ user string }

// preAuth are the commands mongod runs before a login.
var preAuth = []string{"hello", "isMaster", "ismaster", "buildInfo", "buildinfo", "ping", "saslStart", "saslContinue", "authenticate", "endSessions"}

func startX509Front(t *testing.T, target, dir string, ca *testcert.CA, users ...string) *x509Front {
	t.Helper()
	f := &x509Front{users: users}
	certFile, keyFile := testcert.Write(t, dir, "x509front")
	f.CertFile = certFile
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	pem, err := os.ReadFile(ca.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	f.hello = func(_ *x509Conn, m frontMsg, reply []byte) []byte {
		if _, ok := m.Body.Lookup("speculativeAuthenticate").DocumentOK(); ok {
			f.Speculative.Add(1)
		}
		return reply
	}
	f.answer = func(s *x509Conn, c net.Conn, m frontMsg) (bsoncore.Document, bool) {
		if m.Name == "authenticate" {
			return f.authenticate(s, c, m.Body), true
		}
		if s.user == "" && !slices.Contains(preAuth, m.Name) {
			f.Refused.Add(1)
			return serverError(13, "Unauthorized", "Command "+m.Name+" requires authentication"), true
		}
		return nil, false
	}
	f.start(t, target, &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool,
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12})
	return f
}

// Logins returns the subjects logged in so far.
func (f *x509Front) Logins() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ins...)
}

// authenticate answers MONGODB-X509 as mongod does.
func (f *x509Front) authenticate(s *x509Conn, c net.Conn, body bsoncore.Document) bsoncore.Document {
	fail := func(msg string) bsoncore.Document { return serverError(18, "AuthenticationFailed", msg) }
	if mech, _ := body.Lookup("mechanism").StringValueOK(); mech != "MONGODB-X509" {
		return fail("Received authentication for mechanism " + mech + " which is not enabled")
	}
	tc, ok := c.(*tls.Conn)
	if !ok || len(tc.ConnectionState().PeerCertificates) == 0 {
		return fail("No verified subject name available from client")
	}
	subject := tc.ConnectionState().PeerCertificates[0].Subject.String()
	if u, ok := body.Lookup("user").StringValueOK(); ok && u != subject {
		return fail("There is no x.509 client certificate matching the user.")
	}
	if !slices.Contains(f.users, subject) {
		return fail("Could not find user \"" + subject + "\" for db \"$external\"")
	}
	s.user = subject
	f.mu.Lock()
	f.ins = append(f.ins, subject)
	f.mu.Unlock()
	return bsoncore.NewDocumentBuilder().AppendString("dbname", "$external").AppendString("user", subject).AppendDouble("ok", 1).Build()
}

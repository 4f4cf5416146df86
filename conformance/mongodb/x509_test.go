package mongodb

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/hoophq/sidecar/internal/testcert"
)

// MONGODB-X509 through the Sidecar, with the Go driver
// (tlsCertificateKeyFile, authMechanism=MONGODB-X509) and mongosh. The
// listener verifies the agent's certificate (tls.client_ca_file, the
// agents' CA), answers its authenticate itself for the certificate's
// subject, and logs in upstream with the certificate x509_logins maps
// that subject to. FerretDB has no X.509 authentication, so the upstream
// here is a stand-in: x509Front, TLS only, requiring a client certificate
// from the upstream CA, answering MONGODB-X509 as mongod does and refusing
// every command before a login. Shown: agent-1 logs in, the front saw the
// mapped upstream certificate's login (and no speculativeAuthenticate),
// its insert runs; its deleteMany is held with agent-1's subject as the
// approval's identity; after approval the identical resend from a new
// client runs once; the next send is a new approval. agent-2 (a valid
// certificate, no x509_logins entry), agent-1 naming another user, and a
// certificate from another CA claiming agent-1's subject are refused.
func TestX509ThroughSidecar(t *testing.T) {
	t.Parallel() // mongosh start-up: overlaps with the others
	e := newEnv(t)
	dir := t.TempDir()
	agents := testcert.NewCA(t, dir, "agents")
	_, _, agent1 := agents.Client(t, dir, "agent-1", pkix.Name{CommonName: "agent-1", Organization: []string{"hoop-test"}})
	_, _, agent2 := agents.Client(t, dir, "agent-2", pkix.Name{CommonName: "agent-2", Organization: []string{"hoop-test"}})
	_, _, forged := testcert.NewCA(t, dir, "other").Client(t, dir, "forged", pkix.Name{CommonName: "agent-1", Organization: []string{"hoop-test"}})
	upCA := testcert.NewCA(t, dir, "upstream")
	upCert, upKey, _ := upCA.Client(t, dir, "svc-agent-1", pkix.Name{CommonName: "svc-agent-1", OrganizationalUnit: []string{"sidecar"}, Organization: []string{"db"}})
	// The listener's own upstream certificate (upstream_tls.cert_file): for
	// connections without an x509_logins entry; no user at the front.
	sideCert, sideKey, _ := upCA.Client(t, dir, "sidecar", pkix.Name{CommonName: "sidecar", Organization: []string{"db"}})
	const agent1Subject, upSubject = "CN=agent-1,O=hoop-test", "CN=svc-agent-1,OU=sidecar,O=db"
	front := startX509Front(t, e.up.Addr, dir, upCA, upSubject)
	t.Logf("upstream: stand-in X.509 front (TLS, client certificate required, MONGODB-X509 for %s, every other command refused before login) in front of %s, because FerretDB has no X.509 authentication", upSubject, e.up.Source)
	listenerCert, listenerKey := testcert.Write(t, dir, "localhost")
	addr, _ := e.sidecar(listenerOpts{upstream: front.Addr, extra: fmt.Sprintf(`    tls: {cert_file: %s, key_file: %s, client_ca_file: %s}
    upstream_tls: {enabled: true, ca_file: %s, server_name: x509front, cert_file: %s, key_file: %s}
    x509_logins:
      - {subject: %q, cert_file: %s, key_file: %s}
`, listenerCert, listenerKey, agents.CertFile, front.CertFile, sideCert, sideKey, agent1Subject, upCert, upKey)})
	ctx := context.Background()
	x509URI := func(pem string, more url.Values) string {
		q := url.Values{"tls": {"true"}, "tlsCAFile": {listenerCert}, "tlsCertificateKeyFile": {pem},
			"authMechanism": {"MONGODB-X509"}, "authSource": {"$external"}, "serverSelectionTimeoutMS": {"5000"}}
		for k, v := range more {
			q[k] = v
		}
		return e.uri(addr, returnApp, q)
	}
	e.seed("t", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}})

	coll := e.clientURI(x509URI(agent1, nil)).Database(e.db).Collection("t")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "x1"}, {Key: "a", Value: 3}}); err != nil {
		t.Fatalf("agent-1's insert through the Sidecar: %v", err)
	}
	if logins := front.Logins(); len(logins) == 0 || logins[0] != upSubject {
		t.Fatalf("the front saw logins %q, want %s (the mapped upstream certificate)", logins, upSubject)
	}
	if n := front.Speculative.Load(); n != 0 {
		t.Fatalf("%d hellos reached the upstream with a speculativeAuthenticate", n)
	}
	_, err := coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	id := heldID(t, err)
	if who := e.cp.Review(t, id).ClientIdentity; who != agent1Subject {
		t.Fatalf("the approval's client_identity is %q, want %q", who, agent1Subject)
	}
	t.Logf("held for %s: %v", agent1Subject, err)
	e.cp.Approve(t, id)
	again := e.clientURI(x509URI(agent1, nil)).Database(e.db).Collection("t")
	if res, err := again.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}}); err != nil || res.DeletedCount != 2 {
		t.Fatalf("the approved resend from a new client: %+v %v", res, err)
	}
	_, err = again.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	if next := heldID(t, err); next == id {
		t.Fatalf("the next send reused approval %s", id)
	}

	refused := func(name, uri, want string) {
		t.Helper()
		err := e.clientURI(uri).Ping(ctx, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %v, want an error with %q", name, err, want)
		}
		t.Logf("%s: %v", name, err)
	}
	logins := len(front.Logins())
	refused("agent-2 (no x509_logins entry)", x509URI(agent2, nil), "AuthenticationFailed")
	// Go's TLS client sends only a certificate issued by a CA the server
	// names (the listener names client_ca_file's), so this one arrives
	// without any; a client that sent it anyway would fail the handshake
	// (VerifyClientCertIfGiven).
	refused("a certificate from another CA", x509URI(forged, nil), "No verified subject name available from client")
	// Sent anyway, the other CA's certificate fails the listener's TLS
	// handshake (the alert arrives on the first read under TLS 1.3).
	forgedPair, err := tls.LoadX509KeyPair(forged, forged)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if pem, err := os.ReadFile(listenerCert); err != nil || !roots.AppendCertsFromPEM(pem) {
		t.Fatal("listener certificate", err)
	}
	tc, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: "localhost",
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &forgedPair, nil }})
	if err == nil {
		_ = tc.SetDeadline(time.Now().Add(10 * time.Second))
		_, err = tc.Read(make([]byte, 1))
		tc.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a certificate from another CA, sent anyway: %v, want a TLS certificate error", err)
	}
	t.Logf("a certificate from another CA, sent anyway: %v", err)

	// The Go driver never names the user; mongosh (the Node driver) does
	// when the URI has one.
	naming, _ := url.Parse(x509URI(agent1, nil))
	naming.User = url.User("CN=agent-2,O=hoop-test")
	if out := e.mongoshURI(naming.String(), `print("CONNECTED")`); !strings.Contains(out, "There is no x.509 client certificate matching the user.") {
		t.Fatalf("mongosh with agent-1's certificate naming agent-2:\n%s", out)
	}
	if n := len(front.Logins()); n != logins {
		t.Fatalf("a refused client made the Sidecar log in upstream (%d logins, was %d)", n, logins)
	}

	// mongosh with the same certificate.
	out := e.mongoshURI(x509URI(agent1, nil), `try { db.t.insertOne({_id: "m1", a: 5}); print("INSERTED"); db.t.deleteMany({a: 5}) } catch (err) { print("ERR " + err.code + " " + err.message) }`)
	if !strings.Contains(out, "INSERTED") || !strings.Contains(out, "ERR 13 statement held for human approval") {
		t.Fatalf("mongosh with MONGODB-X509:\n%s", out)
	}
	if ids := approvalIDs(out); len(ids) != 1 || e.cp.Review(t, ids[0]).ClientIdentity != agent1Subject {
		t.Fatalf("mongosh's held deleteMany:\n%s", out)
	}
}

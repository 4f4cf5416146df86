package mongodb

import (
	"bytes"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/app"
)

// The X.509 user is the certificate's subject as its RDN sequence says it
// (RFC 2253, most specific first), as mongod names it: two certificates
// whose distinguished names differ are never the same user (an
// x509_logins entry, an identity in the fingerprint). Go's pkix.Name
// drops all but the last CN, puts the attributes in its own order and
// merges repeated attributes into one multi-valued RDN, so its String
// gives different names the same text.
func TestX509SubjectIsTheRDNSequence(t *testing.T) {
	var (
		cn  = asn1.ObjectIdentifier{2, 5, 4, 3}
		ou  = asn1.ObjectIdentifier{2, 5, 4, 11}
		o   = asn1.ObjectIdentifier{2, 5, 4, 10}
		atv = func(t asn1.ObjectIdentifier, v string) pkix.AttributeTypeAndValue {
			return pkix.AttributeTypeAndValue{Type: t, Value: v}
		}
	)
	const agent = "CN=agent-1,OU=agents,O=example"
	for _, c := range []struct {
		name string
		rdns pkix.RDNSequence
		want string
	}{
		{"the usual order", pkix.RDNSequence{{atv(o, "example")}, {atv(ou, "agents")}, {atv(cn, "agent-1")}}, agent},
		{"a second CN", pkix.RDNSequence{{atv(o, "example")}, {atv(ou, "agents")}, {atv(cn, "attacker")}, {atv(cn, "agent-1")}},
			"CN=agent-1,CN=attacker,OU=agents,O=example"},
		{"reversed order", pkix.RDNSequence{{atv(cn, "agent-1")}, {atv(ou, "agents")}, {atv(o, "example")}},
			"O=example,OU=agents,CN=agent-1"},
		{"multi-valued RDN", pkix.RDNSequence{{atv(o, "example")}, {atv(ou, "agents"), atv(cn, "agent-1")}},
			"OU=agents+CN=agent-1,O=example"},
		{"two OU RDNs", pkix.RDNSequence{{atv(o, "example")}, {atv(ou, "agents")}, {atv(ou, "admins")}, {atv(cn, "agent-1")}},
			"CN=agent-1,OU=admins,OU=agents,O=example"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := certSubject(certWithSubject(t, c.rdns)); got != c.want {
				t.Fatalf("subject %q, want %q", got, c.want)
			}
		})
	}
}

func certWithSubject(t *testing.T, rdns pkix.RDNSequence) *x509.Certificate {
	t.Helper()
	raw, err := asn1.Marshal(rdns)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := issue(t, &x509.Certificate{SerialNumber: big.NewInt(1), RawSubject: raw,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}, nil, nil)
	return cert
}

// x509Listener is testListener verifying client certificates, with these
// x509_logins.
func x509Listener(t *testing.T, logins ...app.X509Login) *app.Listener {
	l := testListener(t)
	set := *l.Settings()
	set.TLS.ClientCAFile, set.X509Logins = "agents.crt", logins
	l.Update(set)
	return l
}

// x509Authenticate is a driver's authenticate {mechanism: MONGODB-X509}.
func x509Authenticate(id int32) []byte {
	return opMsg(id, 0, doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendInt32("authenticate", 1).AppendString("mechanism", "MONGODB-X509").AppendString("$db", "$external")
	}))
}

// wantAuthFailed fails the test unless out is an 18 AuthenticationFailed
// and the session's identity is identity.
func wantAuthFailed(t *testing.T, s *session, out *bytes.Buffer, identity string) {
	t.Helper()
	m, err := wire.DecodeMsg(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := m.Body.Lookup("code").AsInt64OK(); code != 18 || s.identity() != identity {
		t.Fatalf("reply %s, identity %q; want 18 and identity %q", m.Body, s.identity(), identity)
	}
}

// An x509_logins entry removed (or pointed at another certificate) by a
// reload stops X.509 logins at once, also on connections made before the
// reload that have not logged in yet: the listener refuses them without
// logging in upstream with the certificate the connection was opened with.
func TestX509LoginAfterReloadRemovedTheEntry(t *testing.T) {
	defer func(w time.Duration) { x509LoginWait = w }(x509LoginWait)
	x509LoginWait = 50 * time.Millisecond // the test's upstream never answers
	const subject = "CN=agent-1,O=example"
	for _, tc := range []struct {
		name   string
		logins []app.X509Login // after the reload
	}{
		{"entry removed", nil},
		{"another certificate", []app.X509Login{{Subject: subject, CertFile: "new.crt", KeyFile: "new.key"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, fwd bytes.Buffer
			s := testSession(x509Listener(t, tc.logins...), x509Authenticate(9), &out, &fwd)
			// Connected before the reload, with the entry then in force.
			s.x509 = &x509Auth{subject: subject, login: &app.X509Login{Subject: subject, CertFile: "old.crt", KeyFile: "old.key"}}
			_ = s.serve()
			if fwd.Len() != 0 {
				t.Fatal("the listener logged in upstream with the certificate of a removed x509_logins entry")
			}
			wantAuthFailed(t, s, &out, "")
		})
	}
}

// When the upstream does not answer the listener's own X.509 authenticate
// in time, the upstream connection may still log in with the mapped
// certificate later: the client is refused and the connection closed, so
// no later command runs upstream with that certificate's user while the
// session's identity is empty.
func TestX509LoginUnansweredClosesTheConnection(t *testing.T) {
	defer func(w time.Duration) { x509LoginWait = w }(x509LoginWait)
	x509LoginWait = 50 * time.Millisecond // the test's upstream never answers
	const subject = "CN=agent-1,O=example"
	login := app.X509Login{Subject: subject, CertFile: "a.crt", KeyFile: "a.key"}
	in := append(x509Authenticate(9), opMsg(10, 0, doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendString("find", "t").AppendString("$db", "app")
	}))...)
	var out, fwd bytes.Buffer
	s := testSession(x509Listener(t, login), in, &out, &fwd)
	s.x509 = &x509Auth{subject: subject, login: &login}
	if err := s.serve(); err == nil {
		t.Fatal("the session went on after an unanswered X.509 login")
	}
	raw, err := wire.ReadMessage(bytes.NewReader(fwd.Bytes()), 0)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := wire.DecodeMsg(raw); err != nil || m.Body.Lookup("authenticate").Type == 0 || len(raw) != fwd.Len() {
		t.Fatalf("forwarded %d bytes, first %v (%v); want only the listener's authenticate", fwd.Len(), m, err)
	}
	wantAuthFailed(t, s, &out, "")
}

// One user per connection, as mongod since 6.0 ("Each client connection
// may only be authenticated once"); an upstream before 6.0 would add the
// second user's rights while the approvals' identity changed. An X.509
// login on a connection logged in as bob (SCRAM through the upstream), and
// a saslStart as bob after an X.509 login, are refused by the listener:
// nothing is relayed and the identity stays the user the upstream has.
func TestX509OneUserPerConnection(t *testing.T) {
	defer func(w time.Duration) { x509LoginWait = w }(x509LoginWait)
	x509LoginWait = 50 * time.Millisecond // the test's upstream never answers
	const subject = "CN=agent-1,O=example"
	login := app.X509Login{Subject: subject, CertFile: "a.crt", KeyFile: "a.key"}
	saslStart := opMsg(9, 0, doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendInt32("saslStart", 1).AppendString("mechanism", "SCRAM-SHA-256").
			AppendBinary("payload", 0, []byte("n,,n=bob,r=abcdefghijkl")).AppendString("$db", "admin")
	}))
	for _, tc := range []struct {
		name, user string // user: the identity the connection already has
		in         []byte
	}{
		{"X.509 after SCRAM", "bob", x509Authenticate(9)},
		{"saslStart after X.509", subject, saslStart},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, fwd bytes.Buffer
			s := testSession(x509Listener(t, login), tc.in, &out, &fwd)
			s.x509 = &x509Auth{subject: subject, login: &login}
			s.user = tc.user
			_ = s.serve()
			if fwd.Len() != 0 {
				t.Fatalf("%d bytes relayed to the upstream on a connection logged in as %s", fwd.Len(), tc.user)
			}
			wantAuthFailed(t, s, &out, tc.user)
		})
	}
}

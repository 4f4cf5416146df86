package mongodb

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"testing"
	"time"
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
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), RawSubject: raw, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

package mongodb

import (
	"bytes"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// With client certificates verified (x509 set), a hello's
// speculativeAuthenticate for MONGODB-X509 is taken out of the hello the
// upstream gets (OP_MSG, checksum recomputed; legacy OP_QUERY inside its
// $query wrapper), with the same requestID and everything else as sent;
// authenticate is answered by the listener, never forwarded: a user other
// than the certificate's subject, no certificate, and a subject without an
// x509_logins entry are each 18 AuthenticationFailed with mongod's text.
func TestX509HelloAndRefusals(t *testing.T) {
	spec := doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendInt32("authenticate", 1).AppendString("mechanism", "MONGODB-X509").AppendString("db", "$external")
	})
	hello := opMsg(7, wire.ChecksumPresent, doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendInt32("hello", 1).AppendDocument("speculativeAuthenticate", spec).AppendString("$db", "admin")
	}))
	legacy := (&wire.Query{Header: wire.Header{RequestID: 8}, FullCollectionName: "admin.$cmd", NumberToReturn: -1,
		Query: doc(func(b *bsoncore.DocumentBuilder) {
			b.AppendDocument("$query", doc(func(q *bsoncore.DocumentBuilder) {
				q.AppendInt32("isMaster", 1).AppendDocument("speculativeAuthenticate", spec)
			}))
		})}).Append(nil)
	var out, fwd bytes.Buffer
	s := testSession(testListener(t), append(hello, legacy...), &out, &fwd)
	s.x509 = &x509Auth{subject: "CN=agent-1,O=example"}
	_ = s.serve()
	rest := fwd.Bytes()
	for _, want := range []int32{7, 8} {
		raw, err := wire.ReadMessage(bytes.NewReader(rest), 0)
		if err != nil {
			t.Fatalf("forwarded hello %d: %v", want, err)
		}
		rest = rest[len(raw):]
		h, _ := wire.ParseHeader(raw)
		var body bsoncore.Document
		if h.OpCode == wire.OpMsg {
			m, err := wire.DecodeMsg(raw) // verifies the checksum
			if err != nil {
				t.Fatal(err)
			}
			body = m.Body
		} else {
			q, err := wire.DecodeQuery(raw)
			if err != nil {
				t.Fatal(err)
			}
			body = q.Query.Lookup("$query").Document()
		}
		if h.RequestID != want || strings.Contains(body.String(), "speculativeAuthenticate") || !strings.Contains(body.String(), "ello") && !strings.Contains(body.String(), "isMaster") {
			t.Fatalf("forwarded hello %d: id %d, %s", want, h.RequestID, body)
		}
	}

	for _, tc := range []struct {
		name, user string
		x          *x509Auth
		want       string
	}{
		{"another user", "CN=agent-2,O=example", &x509Auth{subject: "CN=agent-1,O=example"}, "There is no x.509 client certificate matching the user."},
		{"no certificate", "", &x509Auth{}, "No verified subject name available from client"},
		{"no x509_logins entry", "", &x509Auth{subject: "CN=agent-1,O=example"}, "Authentication failed."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auth := opMsg(9, 0, doc(func(b *bsoncore.DocumentBuilder) {
				b.AppendInt32("authenticate", 1).AppendString("mechanism", "MONGODB-X509")
				if tc.user != "" {
					b.AppendString("user", tc.user)
				}
				b.AppendString("$db", "$external")
			}))
			var out, fwd bytes.Buffer
			s := testSession(testListener(t), auth, &out, &fwd)
			s.x509 = tc.x
			_ = s.serve()
			if fwd.Len() != 0 {
				t.Fatal("authenticate was forwarded")
			}
			m, err := wire.DecodeMsg(out.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if code, _ := m.Body.Lookup("code").AsInt64OK(); code != 18 || m.Body.Lookup("errmsg").StringValue() != tc.want || m.Header.ResponseTo != 9 {
				t.Fatalf("reply %s (responseTo %d), want code 18 %q", m.Body, m.Header.ResponseTo, tc.want)
			}
			if s.identity() != "" {
				t.Fatalf("identity %q after a refused login", s.identity())
			}
		})
	}
}

package mongodb

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// SCRAM relayed: the user of saslStart's client-first message (n=) becomes
// the session's identity once the upstream answers the last step with ok: 1
// and done: true; an upstream that refuses the login leaves it empty.
func TestScramUserBecomesIdentityOnSuccess(t *testing.T) {
	for _, tc := range []struct {
		name     string
		finalOK  float64
		identity string
	}{{"accepted", 1, "alice"}, {"refused", 0, ""}} {
		t.Run(tc.name, func(t *testing.T) {
			start := opMsg(1, 0, doc(func(b *bsoncore.DocumentBuilder) {
				b.AppendInt32("saslStart", 1).AppendString("mechanism", "SCRAM-SHA-256").
					AppendBinary("payload", 0, []byte("n,,n=alice,r=abcdef")).AppendString("$db", "admin")
			}))
			cont := opMsg(2, 0, doc(func(b *bsoncore.DocumentBuilder) {
				b.AppendInt32("saslContinue", 1).AppendInt32("conversationId", 1).
					AppendBinary("payload", 0, []byte("c=biws,r=abcdef,p=proof")).AppendString("$db", "admin")
			}))
			var out, fwd bytes.Buffer
			s := testSession(testListener(t), append(start, cont...), &out, &fwd)
			_ = s.serve()
			if !bytes.Equal(fwd.Bytes(), append(start, cont...)) {
				t.Fatal("the authentication steps were not forwarded as sent")
			}
			if s.identity() != "" {
				t.Fatal("identity set before the upstream answered")
			}
			reply := func(to int32, ok float64, done bool) []byte {
				m := opMsg(100+to, 0, doc(func(b *bsoncore.DocumentBuilder) {
					b.AppendInt32("conversationId", 1).AppendBoolean("done", done).AppendDouble("ok", ok)
				}))
				m[8] = byte(to) // responseTo
				return m
			}
			s.up = fuzzConn{r: bytes.NewReader(append(reply(1, 1, false), reply(2, tc.finalOK, tc.finalOK == 1)...))}
			s.relay()
			if got := s.identity(); got != tc.identity {
				t.Fatalf("identity %q, want %q", got, tc.identity)
			}
		})
	}
}

// A client that pipelines a second saslStart claiming another user before
// the upstream has answered its first login's last step must not get that
// other user's identity (approvals are bound to the identity): the
// identity is the user of the conversation the upstream confirmed.
func TestPipelinedSaslStartDoesNotTakeOverTheIdentity(t *testing.T) {
	start := func(id int32, user string) []byte {
		return opMsg(id, 0, doc(func(b *bsoncore.DocumentBuilder) {
			b.AppendInt32("saslStart", 1).AppendString("mechanism", "SCRAM-SHA-256").
				AppendBinary("payload", 0, []byte("n,,n="+user+",r=abcdef")).AppendString("$db", "admin")
		}))
	}
	cont := opMsg(2, 0, doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendInt32("saslContinue", 1).AppendInt32("conversationId", 1).
			AppendBinary("payload", 0, []byte("c=biws,r=abcdef,p=proof")).AppendString("$db", "admin")
	}))
	in := bytes.Join([][]byte{start(1, "alice"), cont, start(3, "bob")}, nil)
	var out, fwd bytes.Buffer
	s := testSession(testListener(t), in, &out, &fwd)
	_ = s.serve()
	reply := func(to int32, ok float64, done bool) []byte {
		m := opMsg(100+to, 0, doc(func(b *bsoncore.DocumentBuilder) {
			b.AppendInt32("conversationId", 1).AppendBoolean("done", done).AppendDouble("ok", ok)
		}))
		m[8] = byte(to) // responseTo
		return m
	}
	s.up = fuzzConn{r: bytes.NewReader(bytes.Join([][]byte{reply(1, 1, false), reply(2, 1, true), reply(3, 0, false)}, nil))}
	s.relay()
	if got := s.identity(); got != "alice" {
		t.Fatalf("identity %q, want alice (the login the upstream confirmed)", got)
	}
}

package mongodb

import (
	"crypto/md5"
	"fmt"
	"net"
	"sync/atomic"
	"testing"

	"github.com/xdg-go/scram"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// scramFront is the stand-in upstream for SCRAM (embedded FerretDB offers
// PLAIN only): a front (front_test.go) that answers the SCRAM-SHA-256 and
// SCRAM-SHA-1 conversations itself (saslStart, saslContinue and the hello's
// speculativeAuthenticate, server side of github.com/xdg-go/scram, as a
// MongoDB server does: RFC 5802, RFC 7677, MongoDB's auth spec) for a fixed
// set of users, and relays every other message to target unchanged. It
// counts the proofs it verified and the logins it refused.
type scramFront struct {
	front[scramConv]
	Logins  atomic.Int64 // client proofs that verified
	Refused atomic.Int64 // conversations answered AuthenticationFailed
	// Speculative counts conversations started in a hello's
	// speculativeAuthenticate, Started those started with saslStart.
	Speculative, Started atomic.Int64
	// NoSpeculative makes the front ignore speculativeAuthenticate, as a
	// MongoDB before 4.4 does: the client then runs saslStart itself.
	NoSpeculative atomic.Bool

	servers map[string]*scram.Server
}

// The users the stand-in front knows, with their passwords.
var scramUsers = map[string]string{"alice": "alice-pw-1", "bob": "bob-pw-2"}

func startSCRAMFront(t *testing.T, target string) *scramFront {
	t.Helper()
	f := &scramFront{servers: map[string]*scram.Server{}}
	for mech, gen := range map[string]scram.HashGeneratorFcn{"SCRAM-SHA-1": scram.SHA1, "SCRAM-SHA-256": scram.SHA256} {
		creds := map[string]scram.StoredCredentials{}
		for user, pw := range scramUsers {
			var c *scram.Client
			var err error
			if mech == "SCRAM-SHA-1" {
				// MongoDB's SCRAM-SHA-1 password is hex(MD5("user:mongo:pw")), unprepped.
				c, err = gen.NewClientUnprepped(user, fmt.Sprintf("%x", md5.Sum([]byte(user+":mongo:"+pw))), "")
			} else {
				c, err = gen.NewClient(user, pw, "")
			}
			if err != nil {
				t.Fatal(err)
			}
			sc, err := c.GetStoredCredentialsWithError(scram.KeyFactors{Salt: "hoop-salt-" + user, Iters: 10000})
			if err != nil {
				t.Fatal(err)
			}
			creds[user] = sc
		}
		srv, err := gen.NewServer(func(user string) (scram.StoredCredentials, error) {
			if c, ok := creds[user]; ok {
				return c, nil
			}
			return scram.StoredCredentials{}, fmt.Errorf("no user %q", user)
		})
		if err != nil {
			t.Fatal(err)
		}
		f.servers[mech] = srv
	}
	f.answer = func(sc *scramConv, _ net.Conn, m frontMsg) (bsoncore.Document, bool) {
		if m.Name != "saslStart" && m.Name != "saslContinue" {
			return nil, false
		}
		if m.Name == "saslStart" {
			f.Started.Add(1)
		}
		return f.sasl(sc, m.Name, m.Body), true
	}
	f.hello = func(sc *scramConv, m frontMsg, reply []byte) []byte { return f.helloReply(sc, m.Req, m.Body, reply) }
	f.start(t, target, nil)
	return f
}

// scramConv is one connection's SCRAM conversation.
type scramConv struct {
	conv      *scram.ServerConversation
	skipEmpty bool
}

// helloReply answers the hello's speculativeAuthenticate (a saslStart) and
// names the SCRAM mechanisms when the client asked saslSupportedMechs.
func (f *scramFront) helloReply(sc *scramConv, req wire.Header, body bsoncore.Document, reply []byte) []byte {
	spec, hasSpec := body.Lookup("speculativeAuthenticate").DocumentOK()
	hasSpec = hasSpec && !f.NoSpeculative.Load()
	_, askMechs := body.Lookup("saslSupportedMechs").StringValueOK()
	if !hasSpec && !askMechs {
		return reply
	}
	return editHello(req, reply, []string{"speculativeAuthenticate", "saslSupportedMechs"}, func(b *bsoncore.DocumentBuilder) {
		if askMechs {
			b.AppendArray("saslSupportedMechs", bsoncore.NewArrayBuilder().AppendString("SCRAM-SHA-1").AppendString("SCRAM-SHA-256").Build())
		}
		if hasSpec {
			f.Speculative.Add(1)
			if ans := f.sasl(sc, "saslStart", spec); commandOK(ans) {
				// The reply's speculativeAuthenticate is the saslStart
				// answer; a failed one is left out (the client then
				// runs saslStart itself).
				b.AppendDocument("speculativeAuthenticate", ans)
			}
		}
	})
}

// sasl answers saslStart and saslContinue for SCRAM as a MongoDB server
// does: conversationId 1, payload, done (true after the server-final
// message when the client sent options.skipEmptyExchange, else after one
// more empty saslContinue); AuthenticationFailed (code 18) for an unknown
// user, a wrong proof or a message out of turn.
func (f *scramFront) sasl(sc *scramConv, name string, body bsoncore.Document) bsoncore.Document {
	_, payload, _ := body.Lookup("payload").BinaryOK()
	if name == "saslStart" {
		mech, _ := body.Lookup("mechanism").StringValueOK()
		srv := f.servers[mech]
		if srv == nil {
			return f.authFailed(sc, "Received authentication for mechanism "+mech+" which is not enabled")
		}
		opts, _ := body.Lookup("options").DocumentOK()
		sc.skipEmpty, _ = opts.Lookup("skipEmptyExchange").BooleanOK()
		sc.conv = srv.NewConversation()
		out, err := sc.conv.Step(string(payload))
		if err != nil {
			return f.authFailed(sc, "Authentication failed.")
		}
		return saslReply(out, false)
	}
	switch {
	case sc.conv == nil:
		return f.authFailed(sc, "No SASL session state found")
	case sc.conv.Done() && sc.conv.Valid():
		sc.conv = nil // the empty exchange after the server-final message
		return saslReply("", true)
	}
	out, err := sc.conv.Step(string(payload))
	if err != nil || !sc.conv.Valid() {
		return f.authFailed(sc, "Authentication failed.")
	}
	f.Logins.Add(1)
	done := sc.skipEmpty
	if done {
		sc.conv = nil
	}
	return saslReply(out, done)
}

func saslReply(payload string, done bool) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().
		AppendInt32("conversationId", 1).
		AppendBoolean("done", done).
		AppendBinary("payload", 0, []byte(payload)).
		AppendDouble("ok", 1).
		Build()
}

// authFailed is MongoDB's answer to a failed authentication.
func (f *scramFront) authFailed(sc *scramConv, msg string) bsoncore.Document {
	sc.conv = nil
	f.Refused.Add(1)
	return serverError(18, "AuthenticationFailed", msg)
}

// serverError is a MongoDB server's error reply: {ok: 0, errmsg, code,
// codeName}.
func serverError(code int32, codeName, msg string) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendDouble("ok", 0).AppendString("errmsg", msg).
		AppendInt32("code", code).AppendString("codeName", codeName).Build()
}

// commandOK reports whether a reply document says ok: 1.
func commandOK(doc bsoncore.Document) bool {
	v := doc.Lookup("ok")
	if f, ok := v.AsFloat64OK(); ok {
		return f == 1
	}
	b, _ := v.BooleanOK()
	return b
}

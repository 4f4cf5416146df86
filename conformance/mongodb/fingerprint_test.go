package mongodb

import (
	"context"
	"net/url"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The same deleteMany from two users is two approvals, and the approver
// sees who sent each; a resend of an approved command from a new client
// (another connection, a new lsid, a later $clusterTime) uses the
// approval. Embedded FerretDB authenticates with PLAIN only (its SCRAM
// needs an option the embedded package does not expose): the users log in
// with PLAIN here, which shows the listener's reading of PLAIN's authcid;
// TestSCRAMUsersThroughSidecar shows the same with SCRAM-SHA-256 and
// SCRAM-SHA-1 through a stand-in SCRAM front (docs/mongodb-listener.md,
// "Login" and "Tests").
func TestFingerprintUsersAndNewSession(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.seed("t", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}})
	ctx := context.Background()
	as := func(user string) url.Values {
		v := url.Values{}
		if e.up.SCRAM {
			return v // HOOP_TEST_MONGODB_URL: the URL's own user; see the doc comment
		}
		v.Set("authMechanism", "PLAIN")
		v.Set("authSource", "$external")
		return v
	}
	userURL := func(user string) string {
		u, _ := url.Parse(e.uri(addr, returnApp, as(user)))
		u.User = url.UserPassword(user, "secret-"+user)
		return u.String()
	}
	alice := e.clientURI(userURL("alice")).Database(e.db).Collection("t")
	bob := e.clientURI(userURL("bob")).Database(e.db).Collection("t")

	_, err := alice.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	idAlice := heldID(t, err)
	_, err = bob.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	idBob := heldID(t, err)
	if idAlice == idBob {
		t.Fatal("the same deleteMany from alice and bob got one approval")
	}
	if r := e.cp.Review(t, idAlice); r.ClientIdentity != "alice" {
		t.Fatalf("approver sees identity %q, want alice", r.ClientIdentity)
	}
	if r := e.cp.Review(t, idBob); r.ClientIdentity != "bob" {
		t.Fatalf("approver sees identity %q, want bob", r.ClientIdentity)
	}
	e.cp.Approve(t, idAlice)

	// A new client of alice: new connection, new lsid, later $clusterTime.
	fresh := e.clientURI(userURL("alice")).Database(e.db).Collection("t")
	res, err := fresh.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	if err != nil || res.DeletedCount != 1 {
		t.Fatalf("alice's approved resend from a new session: %+v %v", res, err)
	}
	if st := e.cp.Review(t, idAlice).Status; st != "EXECUTED" {
		t.Fatalf("approval %s, want EXECUTED", st)
	}
	if st := e.cp.Review(t, idBob).Status; st != "PENDING" {
		t.Fatalf("bob's approval %s, want PENDING", st)
	}
}

package mongodb

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// SCRAM end to end through the Sidecar, with the Go driver and mongosh:
// alice logs in with SCRAM-SHA-256 (started in the hello's
// speculativeAuthenticate), bob with SCRAM-SHA-1 (started with saslStart), each proof
// verified by the upstream (so the Sidecar relayed the conversation
// untouched); a wrong password is refused with the upstream's own error
// (code 18 AuthenticationFailed); the same deleteMany from alice and bob
// files two approvals, each naming its SCRAM user as the identity; alice's
// approved one resent by alice from a new client (new connection, new
// SCRAM login, new lsid) runs once, the next send is a new approval;
// bob's stays pending. Embedded FerretDB offers PLAIN only, so the
// upstream here is a stand-in: scramFront answers the SCRAM conversation
// (github.com/xdg-go/scram's server side) and forwards everything else to
// the suite's upstream; the test logs it.
func TestSCRAMUsersThroughSidecar(t *testing.T) {
	t.Parallel() // slow (node start-up): overlaps with the others
	e := newEnv(t)
	var front *scramFront
	upstreamAddr := e.up.Addr
	if !e.up.SCRAM {
		front = startSCRAMFront(t, e.up.Addr)
		upstreamAddr = front.Addr
		t.Logf("upstream: stand-in SCRAM front (SCRAM-SHA-256 and SCRAM-SHA-1, users alice and bob) in front of %s, because embedded FerretDB offers PLAIN only", e.up.Source)
	} else {
		t.Skip("HOOP_TEST_MONGODB_URL: needs users alice/bob with the suite's passwords on that server; the stand-in front covers SCRAM here")
	}
	addr, _ := e.sidecar(listenerOpts{upstream: upstreamAddr})
	e.seed("t", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}})
	ctx := context.Background()
	userURL := func(user, pw, mech, app string) string {
		u, _ := url.Parse(e.uri(addr, app, url.Values{"authMechanism": {mech}}))
		u.User = url.UserPassword(user, pw)
		return u.String()
	}

	// A wrong password: the upstream's refusal reaches the client.
	bad := e.clientURI(userURL("alice", "not-her-password", "SCRAM-SHA-256", returnApp))
	err := bad.Ping(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "AuthenticationFailed") || !strings.Contains(err.Error(), "Authentication failed.") {
		t.Fatalf("a wrong password through the Sidecar: %v, want the upstream's (AuthenticationFailed) Authentication failed.", err)
	}
	t.Logf("wrong password: %v", err)
	if front.Refused.Load() == 0 {
		t.Fatal("the refusal did not come from the upstream")
	}

	// alice's conversation starts in the hello (speculativeAuthenticate,
	// as the driver does with MongoDB 4.4+); bob's with saslStart (the
	// front answers no speculativeAuthenticate, as MongoDB before 4.4).
	before := front.Logins.Load()
	alice := e.clientURI(userURL("alice", scramUsers["alice"], "SCRAM-SHA-256", returnApp)).Database(e.db).Collection("t")
	spec := front.Speculative.Load()
	_, err = alice.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	idAlice := heldID(t, err)
	if front.Speculative.Load() == spec {
		t.Fatal("alice's login did not start in the hello: the test would not show the speculative path")
	}
	front.NoSpeculative.Store(true)
	started := front.Started.Load()
	bob := e.clientURI(userURL("bob", scramUsers["bob"], "SCRAM-SHA-1", returnApp)).Database(e.db).Collection("t")
	_, err = bob.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	idBob := heldID(t, err)
	if front.Started.Load() == started {
		t.Fatal("bob's login did not use saslStart: the test would not show that path")
	}
	front.NoSpeculative.Store(false)
	if n := front.Logins.Load() - before; n < 2 {
		t.Fatalf("%d SCRAM proofs verified at the upstream, want one for alice (SHA-256) and one for bob (SHA-1)", n)
	}
	if idAlice == idBob {
		t.Fatal("the same deleteMany from alice and bob got one approval")
	}
	if r := e.cp.Review(t, idAlice); r.ClientIdentity != "alice" {
		t.Fatalf("approver sees identity %q, want alice (the SCRAM user)", r.ClientIdentity)
	}
	if r := e.cp.Review(t, idBob); r.ClientIdentity != "bob" {
		t.Fatalf("approver sees identity %q, want bob (the SCRAM user)", r.ClientIdentity)
	}
	e.cp.Approve(t, idAlice)
	// alice resends from a new client: a new connection with its own SCRAM
	// login, a new lsid, a later $clusterTime.
	alice = e.clientURI(userURL("alice", scramUsers["alice"], "SCRAM-SHA-256", returnApp)).Database(e.db).Collection("t")
	res, err := alice.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	if err != nil || res.DeletedCount != 2 {
		t.Fatalf("alice's approved resend: %+v %v", res, err)
	}
	if st := e.cp.Review(t, idAlice).Status; st != "EXECUTED" {
		t.Fatalf("approval %s, want EXECUTED", st)
	}
	_, err = alice.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	if again := heldID(t, err); again == idAlice || again == idBob {
		t.Fatal("alice's next send must file a new approval")
	}
	if st := e.cp.Review(t, idBob).Status; st != "PENDING" {
		t.Fatalf("bob's approval %s, want PENDING", st)
	}

	// mongosh: bob with SCRAM-SHA-256 is held under his name; a wrong
	// password is refused with the upstream's message.
	// One mongosh process (node starts once): bob, then a wrong password.
	out := e.mongoshURI(userURL("bob", scramUsers["bob"], "SCRAM-SHA-256", returnApp), fmt.Sprintf(
		`try { db.t.deleteMany({a: 2}) } catch (err) { print("ERR " + err.code + " " + err.message) }
try { const bad = connect(%q); bad.t.countDocuments({}); print("WRONG PASSWORD ACCEPTED") } catch (err) { print("AUTH " + err.message) }`,
		userURL("bob", "wrong", "SCRAM-SHA-256", returnApp)))
	t.Logf("mongosh printed:\n%s", strings.TrimSpace(out))
	ids := approvalIDs(out)
	if !strings.Contains(out, "ERR 13 ") || len(ids) != 1 {
		t.Fatalf("mongosh as bob (SCRAM-SHA-256):\n%s", out)
	}
	if r := e.cp.Review(t, ids[0]); r.ClientIdentity != "bob" {
		t.Fatalf("mongosh's approval shows identity %q, want bob", r.ClientIdentity)
	}
	if !strings.Contains(out, "AUTH Authentication failed.") || strings.Contains(out, "WRONG PASSWORD ACCEPTED") {
		t.Fatalf("mongosh with a wrong password:\n%s", out)
	}
	if e.count("t", bson.D{}) != 1 {
		t.Fatal("more than alice's approved deleteMany ran")
	}
}

package mongodb

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The Go driver with appName "… hoop-approval=return": deleteMany({a: 1})
// is held with code 13 and the spec's text naming the approval; find on the
// same connection works; after approval with the Control Plane's CLI the
// identical deleteMany runs once; sending it again files a new approval.
// deleteMany({a: 2}) is another approval.
func TestGoDriverReturnModeLoop(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.seed("t", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}})
	ctx := context.Background()
	coll := e.client(addr, returnApp, nil).Database(e.db).Collection("t")

	_, err := coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	id := heldID(t, err)
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 3 {
		t.Fatalf("find on the same connection after the denial: %d %v", n, err)
	}
	_, err = coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 2}})
	if id2 := heldID(t, err); id2 == id {
		t.Fatal("deleteMany({a: 1}) and deleteMany({a: 2}) got the same approval")
	}
	r := e.cp.Review(t, id)
	if r.Status != "PENDING" {
		t.Fatalf("approver sees %+v", r)
	}
	t.Logf("the approver reads: %s", r.Statement)
	e.cp.Approve(t, id)

	res, err := coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	if err != nil || res.DeletedCount != 2 {
		t.Fatalf("the approved resend: %+v %v", res, err)
	}
	if st := e.cp.Review(t, id).Status; st != "EXECUTED" {
		t.Fatalf("approval %s, want EXECUTED", st)
	}
	_, err = coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	if again := heldID(t, err); again == id {
		t.Fatal("sending it again must file a new approval")
	}
	if e.count("t", bson.D{}) != 1 {
		t.Fatal("more than the approved command ran")
	}
}

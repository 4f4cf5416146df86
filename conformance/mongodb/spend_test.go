package mongodb

import (
	"context"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// spend_approval_on: accepted: an approved insert whose answer carries
// writeErrors (a duplicate _id) is no proof that nothing ran (a write with
// several documents writes those before the failing one): the approval is
// spent (EXECUTED), and the identical resend is held under a new approval,
// which the accepted run then spends.
func TestSpendOnAccepted(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{spend: "accepted"})
	e.seed("once", bson.D{{Key: "_id", Value: "k"}, {Key: "v", Value: 0}})
	ctx := context.Background()
	coll := e.client(addr, returnApp, nil).Database(e.db).Collection("once")
	doc := bson.D{{Key: "_id", Value: "k"}, {Key: "v", Value: 1}}

	_, err := coll.InsertOne(ctx, doc)
	id := heldID(t, err)
	e.cp.Approve(t, id)
	_, err = coll.InsertOne(ctx, doc)
	if !mongo.IsDuplicateKeyError(err) {
		t.Fatalf("approved insert of a duplicate _id: %v, want the upstream's duplicate key error", err)
	}
	if st := e.cp.Review(t, id).Status; st != "EXECUTED" {
		t.Fatalf("after writeErrors: %s, want EXECUTED", st)
	}
	if _, err := e.direct("once").DeleteMany(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}
	_, err = coll.InsertOne(ctx, doc)
	if id2 := heldID(t, err); id2 == id {
		t.Fatalf("the resend reused the spent approval %s", id)
	} else {
		id = id2
	}
	e.cp.Approve(t, id)
	if _, err := coll.InsertOne(ctx, doc); err != nil {
		t.Fatalf("the resend: %v", err)
	}
	if st := e.cp.Review(t, id).Status; st != "EXECUTED" {
		t.Fatalf("after the upstream accepted: %s, want EXECUTED", st)
	}
}

// Wait mode: a client that hangs up while its delete waits for a person
// ends the wait (audit decision client_gone); nothing runs and the approval
// stays PENDING.
func TestWaitEndsWhenClientHangsUp(t *testing.T) {
	e := newEnv(t)
	addr, s := e.sidecar(listenerOpts{mode: "wait"})
	e.seed("t", bson.D{{Key: "a", Value: 1}})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	body := bsoncore.NewDocumentBuilder().AppendString("delete", "t").
		AppendArray("deletes", bsoncore.NewArrayBuilder().AppendDocument(bsoncore.NewDocumentBuilder().
			AppendDocument("q", bsoncore.NewDocumentBuilder().AppendInt32("a", 1).Build()).AppendInt32("limit", 0).Build()).Build()).
		AppendString("$db", e.db).Build()
	if _, err := c.Write((&wire.Msg{Header: wire.Header{RequestID: 1}, Body: body}).Append(nil)); err != nil {
		t.Fatal(err)
	}
	s.WaitFor(t, "mongodb command held in wait mode", 20*time.Second)
	c.Close()
	s.WaitFor(t, `"decision":"client_gone"`, 20*time.Second)
	for _, r := range e.cp.Reviews(t) {
		if r.Status != "PENDING" {
			t.Fatalf("approval %s is %s, want PENDING", r.ID, r.Status)
		}
	}
	if e.count("t", bson.D{}) != 1 {
		t.Fatal("the delete ran after its client hung up")
	}
}

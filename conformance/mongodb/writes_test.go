package mongodb

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// aggregate with $out is a write (AGGREGATE_WRITE) and is held; the same
// pipeline without $out is a read and runs. A bulkWrite whose one delete
// is held runs nothing of itself: deleteOne and deleteMany models go in one
// delete command, held whole (the driver sends each kind of write of a
// collection bulkWrite as its own command: an insert before the delete
// runs before the listener sees the delete; docs/mongodb-listener.md,
// "Bulk writes").
func TestAggregateOutAndBulkHeld(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.seed("src", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}}, bson.D{{Key: "b", Value: 3}})
	ctx := context.Background()
	db := e.client(addr, returnApp, nil).Database(e.db)

	_, err := db.Collection("src").Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: bson.D{}}}, {{Key: "$out", Value: "dst"}}})
	id := heldID(t, err)
	if r := e.cp.Review(t, id); !strings.Contains(r.Statement, `"$out":"dst"`) {
		t.Fatalf("the approver does not see the $out: %s", r.Statement)
	}
	cur, err := db.Collection("src").Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "a", Value: 1}}}}})
	if err != nil {
		t.Fatalf("a read-only aggregate: %v", err)
	}
	var got []bson.M
	if err := cur.All(ctx, &got); err != nil || len(got) != 1 {
		t.Fatalf("aggregate read %d documents, %v", len(got), err)
	}

	_, err = db.Collection("src").BulkWrite(ctx, []mongo.WriteModel{
		mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "a", Value: 1}}),
		mongo.NewDeleteManyModel().SetFilter(bson.D{{Key: "b", Value: 3}}),
	})
	heldID(t, err)
	if n := e.count("src", bson.D{}); n != 3 {
		t.Fatalf("%d documents left after the held bulkWrite, want 3 (nothing run)", n)
	}
}

// Inside a transaction (the Go driver's session.WithTransaction), a held
// command fails the transaction: the callback gets the denial (code 13, no
// TransientTransactionError label, so WithTransaction does not retry it:
// the callback runs once), and the listener aborts the transaction on the
// upstream (abortTransaction with the session's lsid and txnNumber, logged).
// FerretDB refuses the transaction fields on any command ("unknown field
// startTransaction"), so here the held command is the transaction's first;
// the in-process test (adapters/inbound/mongodb, transaction_test.go) shows
// the abort that follows an allowed command.
func TestTransactionFailsOnHeldCommand(t *testing.T) {
	e := newEnv(t)
	addr, s := e.sidecar(listenerOpts{})
	e.seed("tx", bson.D{{Key: "a", Value: 1}})
	ctx := context.Background()
	c := e.client(addr, returnApp, nil)
	coll := c.Database(e.db).Collection("tx")
	sess, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	runs := 0
	_, err = sess.WithTransaction(ctx, func(ctx context.Context) (any, error) {
		runs++
		return coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	})
	heldID(t, err)
	var se mongo.ServerError
	if errors.As(err, &se) && se.HasErrorLabel("TransientTransactionError") {
		t.Fatal("the denial carries TransientTransactionError: drivers would retry it")
	}
	if runs != 1 {
		t.Fatalf("the transaction's callback ran %d times, want 1", runs)
	}
	s.WaitFor(t, "mongodb transaction aborted on the upstream after a denial", 10*time.Second)
	if e.count("tx", bson.D{{Key: "a", Value: 1}}) != 1 {
		t.Fatal("the held delete ran")
	}
	// The connection stays usable.
	if _, err := coll.CountDocuments(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}
}

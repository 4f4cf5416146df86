package mongodb

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A rule on the UNBOUNDED effect (docs/rules.md) holds deleteMany({}),
// which would empty the collection, and lets deleteMany({a: 1}) run: the
// Go driver through the Sidecar, the documents counted in the upstream
// directly. The held one names an approval and deletes nothing; the
// bounded one deletes exactly its match.
func TestEffectUnboundedHoldsDeleteManyWithoutFilter(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{mode: "return", match: "{effects: [UNBOUNDED]}"})
	e.seed("t", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}})
	ctx := context.Background()
	coll := e.client(addr, returnApp, nil).Database(e.db).Collection("t")

	_, err := coll.DeleteMany(ctx, bson.D{})
	id := heldID(t, err)
	if n := e.count("t", bson.D{}); n != 3 {
		t.Fatalf("deleteMany({}) held as %s, yet %d documents remain, want 3", id, n)
	}

	res, err := coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	if err != nil {
		t.Fatalf("deleteMany({a: 1}) under a rule on UNBOUNDED: %v", err)
	}
	if res.DeletedCount != 2 {
		t.Fatalf("deleteMany({a: 1}) deleted %d, want 2", res.DeletedCount)
	}
	if n, left := e.count("t", bson.D{{Key: "a", Value: 1}}), e.count("t", bson.D{}); n != 0 || left != 1 {
		t.Fatalf("after deleteMany({a: 1}): %d documents with a: 1 and %d in all, want 0 and 1", n, left)
	}

	// The same rule holds an updateMany({}, …) and lets updateOne({}, …) run.
	_, err = coll.UpdateMany(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: 1}}}})
	heldID(t, err)
	if _, err := coll.UpdateOne(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: 1}}}}); err != nil {
		t.Fatalf("updateOne({}) under a rule on UNBOUNDED: %v", err)
	}
	if n := e.count("t", bson.D{{Key: "b", Value: 1}}); n != 1 {
		t.Fatalf("%d documents with b: 1, want 1 (the held updateMany ran nothing)", n)
	}
}

package mongodb

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// findAndModify with remove: NumberDecimal("1") deletes on mongod (remove
// is a safeBool: any non-zero number), so a rule on DELETE holds it and
// nothing is deleted; remove: "yes", a type mongod refuses, is refused by
// the listener (BadValue) and nothing runs either. Issue 32, point 3;
// docs/mongodb-listener.md, "Flags and numbers".
func TestFindAndModifyRemoveAsDecimalIsHeld(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.seed("mongoheld_fam", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}})
	ctx := context.Background()
	db := e.client(addr, returnApp, nil).Database(e.db)
	one, err := bson.ParseDecimal128("1")
	if err != nil {
		t.Fatal(err)
	}
	err = db.RunCommand(ctx, bson.D{{Key: "findAndModify", Value: "mongoheld_fam"},
		{Key: "query", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "remove", Value: one}}).Err()
	heldID(t, err)

	err = db.RunCommand(ctx, bson.D{{Key: "findAndModify", Value: "mongoheld_fam"},
		{Key: "query", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "remove", Value: "yes"}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 2 {
		t.Fatalf("remove: \"yes\" answered %v, want the listener's BadValue (2)", err)
	}
	if n := e.count("mongoheld_fam", bson.D{}); n != 2 {
		t.Fatalf("%d documents left, want 2 (nothing run)", n)
	}
}

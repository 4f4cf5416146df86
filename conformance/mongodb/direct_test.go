package mongodb

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The Go driver talks to the upstream directly: insert, find, hello's
// maxMessageSizeBytes. This checks the upstream before any Sidecar test.
func TestUpstreamDirectGoDriver(t *testing.T) {
	u := mongoUpstream(t)
	ctx := context.Background()
	c, err := mongo.Connect(options.Client().ApplyURI(u.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(ctx)
	coll := c.Database("mongo_direct").Collection("t")
	_ = coll.Drop(ctx)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	n, err := coll.CountDocuments(ctx, bson.D{})
	if err != nil || n != 1 {
		t.Fatalf("count %d %v", n, err)
	}
	var hello bson.M
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		t.Fatal(err)
	}
	t.Logf("hello: maxMessageSizeBytes=%v maxWireVersion=%v", hello["maxMessageSizeBytes"], hello["maxWireVersion"])
}

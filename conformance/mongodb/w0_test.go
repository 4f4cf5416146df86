package mongodb

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// An unacknowledged write (w: 0: OP_MSG with moreToCome, no reply): a held
// deleteMany gets no answer, as the server sends none, runs nothing and
// files its approval; the connection goes on. Approved, the identical w: 0
// resend runs.
func TestUnacknowledgedWriteMoreToCome(t *testing.T) {
	e := newEnv(t)
	addr, s := e.sidecar(listenerOpts{})
	e.seed("t", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}})
	ctx := context.Background()
	db := e.client(addr, returnApp, nil).Database(e.db)
	w0 := db.Collection("t", options.Collection().SetWriteConcern(writeconcern.Unacknowledged()))
	acked := db.Collection("t")

	if _, err := w0.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatalf("a w:0 write returns no server error: %v", err)
	}
	s.WaitFor(t, "mongodb command denied", 10*time.Second)
	if n, err := acked.CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
		t.Fatalf("after the held w:0 delete: %d documents, %v (want 2, the connection usable)", n, err)
	}
	reviews := e.cp.Reviews(t)
	if len(reviews) != 1 || reviews[0].Status != "PENDING" {
		t.Fatalf("want one PENDING approval, got %+v", reviews)
	}
	e.cp.Approve(t, reviews[0].ID)
	if _, err := w0.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if n, err := acked.CountDocuments(ctx, bson.D{{Key: "a", Value: 1}}); err != nil || n != 0 {
		t.Fatalf("the approved w:0 resend: %d left, %v", n, err)
	}
	if st := e.cp.Review(t, reviews[0].ID).Status; st != "EXECUTED" {
		t.Fatalf("approval %s, want EXECUTED", st)
	}
}

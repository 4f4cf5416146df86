package mongodb

import (
	"context"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// insertMany of 10,000 documents through the Sidecar arrives whole.
func TestInsertMany10000(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	coll := e.client(addr, returnApp, nil).Database(e.db).Collection("many")
	res, err := coll.InsertMany(context.Background(), docs(10000, func(i int) bson.D {
		return bson.D{{Key: "i", Value: i}, {Key: "pad", Value: strings.Repeat("x", 100)}}
	}))
	if err != nil || len(res.InsertedIDs) != 10000 {
		t.Fatalf("insertMany: %v", err)
	}
	if n := e.count("many", bson.D{}); n != 10000 {
		t.Fatalf("%d documents arrived, want 10000", n)
	}
	if n := e.count("many", bson.D{{Key: "i", Value: 9999}}); n != 1 {
		t.Fatal("the last document is missing")
	}
}

// A find of ~200 MB over many batches through the Sidecar is whole, and
// the Sidecar's resident memory grows by less than 50 MiB: replies stream
// through, never held whole.
func TestLargeFindStreams(t *testing.T) {
	t.Parallel() // slow (seeding, node start-up): overlaps with the others
	e := newEnv(t)
	const docSize, n = 1 << 20, 200 // 200 documents of 1 MiB: ~200 MB, over batches of at most 16 MiB
	pad := strings.Repeat("y", docSize)
	for i := 0; i < n; i += 10 {
		e.seed("big", docs(10, func(j int) bson.D { return bson.D{{Key: "i", Value: i + j}, {Key: "pad", Value: pad}} })...)
	}
	addr, s := e.sidecar(listenerOpts{})
	coll := e.client(addr, returnApp, nil).Database(e.db).Collection("big")
	ctx := context.Background()
	if _, err := coll.CountDocuments(ctx, bson.D{}); err != nil { // warm the connection
		t.Fatal(err)
	}
	before := harness.RSS(t, s.PID())
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(10))
	if err != nil {
		t.Fatal(err)
	}
	var count, bytes int
	peak := before
	for cur.Next(ctx) {
		count++
		bytes += len(cur.Current)
		if count%10 == 0 {
			peak = max(peak, harness.RSS(t, s.PID()))
		}
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	peak = max(peak, harness.RSS(t, s.PID()))
	t.Logf("find through the Sidecar: %d documents, %d MB; Sidecar RSS %d MiB before, peak %d MiB (growth %d MiB)",
		count, bytes>>20, before>>20, peak>>20, (peak-before)>>20)
	if count != n || bytes < n*docSize {
		t.Fatalf("got %d documents (%d bytes), want %d of at least %d bytes", count, bytes, n, docSize)
	}
	if peak-before >= 50<<20 {
		t.Fatalf("Sidecar RSS grew by %d MiB, want < 50 MiB", (peak-before)>>20)
	}
}

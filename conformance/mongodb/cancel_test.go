package mongodb

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// Cancellation through the Sidecar, with a counting front (scramFront,
// which forwards everything but SCRAM) between the Sidecar and the suite's
// upstream:
//   - a client that closes its connection: the Sidecar closes its upstream
//     connection (the front sees it opened, then closed);
//   - a find with maxTimeMS that the upstream cannot finish in time gets
//     the upstream's own MaxTimeMSExpired (code 50), as a direct client does;
//   - killOp is relayed (the front sees it) and the client gets the
//     upstream's own answer, the same as a direct client. FerretDB v1.24.2
//     has no killOp (CommandNotFound, code 59): against it this shows the
//     relay and the answer, not an operation killed.
func TestCancellationRelayed(t *testing.T) {
	t.Parallel() // its set-up overlaps with the other tests'
	e := newEnv(t)
	front := startSCRAMFront(t, e.up.Addr)
	front.Commands = make(chan string, 256)
	t.Logf("upstream: counting front in front of %s (forwards everything, counts connections)", e.up.Source)
	addr, _ := e.sidecar(listenerOpts{upstream: front.Addr})
	ctx := context.Background()

	t.Run("closed client closes the upstream connection", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		hello := bsoncore.NewDocumentBuilder().AppendInt32("hello", 1).AppendString("$db", "admin").Build()
		m := wire.Msg{Header: wire.Header{RequestID: 7}, Body: hello}
		if _, err := c.Write(m.Append(nil)); err != nil {
			t.Fatal(err)
		}
		if _, err := wire.ReadMessage(c, 0); err != nil {
			t.Fatalf("hello through the Sidecar: %v", err)
		}
		if front.Open.Load() != 1 {
			t.Fatalf("%d upstream connections open at the front, want 1", front.Open.Load())
		}
		c.Close()
		select {
		case <-front.Closed:
		case <-time.After(30 * time.Second):
			t.Fatal("the client closed its connection; the upstream connection stayed open")
		}
		if n := front.Open.Load(); n != 0 {
			t.Fatalf("%d upstream connections still open", n)
		}
	})

	// 5,000 documents and a filter FerretDB cannot push down to SQLite:
	// the scan takes about half a second here, 500 times the 1 ms allowed;
	// the direct send checks that the upstream does expire it.
	const n = 5000
	e.seed("big", docs(n, func(i int) bson.D { return bson.D{{Key: "i", Value: i}, {Key: "s", Value: "some text to scan"}} })...)
	find := bson.D{{Key: "find", Value: "big"}, {Key: "filter", Value: bson.D{{Key: "s", Value: bson.D{{Key: "$regex", Value: "^nothing"}}}}}, {Key: "maxTimeMS", Value: 1}}
	killOp := bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: 12345}}
	through := e.client(addr, returnApp, nil)
	direct := e.directClient()

	t.Run("maxTimeMS", func(t *testing.T) {
		errThrough := through.Database(e.db).RunCommand(ctx, find).Err()
		errDirect := direct.Database(e.db).RunCommand(ctx, find).Err()
		var se mongo.CommandError
		if !errors.As(errDirect, &se) || se.Code != 50 {
			t.Fatalf("the upstream itself did not expire the find (%v): the test would prove nothing", errDirect)
		}
		if !errors.As(errThrough, &se) || se.Code != 50 || se.Name != "MaxTimeMSExpired" {
			t.Fatalf("find with maxTimeMS through the Sidecar: %v, want the upstream's MaxTimeMSExpired", errThrough)
		}
		t.Logf("through the Sidecar: %v", errThrough)
	})

	t.Run("killOp", func(t *testing.T) {
		for len(front.Commands) > 0 {
			<-front.Commands
		}
		errThrough := through.Database("admin").RunCommand(ctx, killOp).Err()
		errDirect := direct.Database("admin").RunCommand(ctx, killOp).Err()
		if (errThrough == nil) != (errDirect == nil) || errThrough != nil && errThrough.Error() != errDirect.Error() {
			t.Fatalf("killOp through the Sidecar answered %v, the upstream directly %v", errThrough, errDirect)
		}
		seen := false
		for len(front.Commands) > 0 {
			if <-front.Commands == "killOp" {
				seen = true
			}
		}
		if !seen {
			t.Fatal("killOp did not reach the upstream")
		}
		t.Logf("killOp relayed; the upstream answered: %v", errThrough)
	})
}

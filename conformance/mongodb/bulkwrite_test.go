package mongodb

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/hoophq/sidecar/conformance/harness"
)

// MongoDB 8.0's client-level bulkWrite command (one command on admin with
// ops and nsInfo), from the Go driver's Client.BulkWrite and the Node
// driver's MongoClient.bulkWrite: a bulkWrite holding one delete (after an
// insert into another collection) is held whole, with the spec's text
// naming the approval id, and nothing of it runs, the insert included;
// after approval the identical resend runs each operation once; the next
// send files a new approval. The drivers send this command only to a
// server reporting wire version 25, and FerretDB reports 21 and lacks the
// command, so the upstream here is a stand-in: bulkFront reports
// maxWireVersion 25, runs each bulkWrite's operations itself against the
// suite's upstream and records them; everything else reaches the upstream.
func TestClientBulkWriteHeld(t *testing.T) {
	e := newEnv(t)
	bf := startBulkFront(t, e.up.Addr)
	t.Logf("upstream: stand-in bulkWrite front (reports maxWireVersion 25, runs bulkWrite's operations itself) in front of %s, because FerretDB v1.24.2 reports wire version 21 and has no bulkWrite command", e.up.Source)
	addr, _ := e.sidecar(listenerOpts{upstream: bf.Addr})
	ctx := context.Background()

	t.Run("Go driver Client.BulkWrite", func(t *testing.T) {
		e.seed("gt", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}})
		c := e.client(addr, returnApp, nil)
		send := func() (*mongo.ClientBulkWriteResult, error) {
			return c.BulkWrite(ctx, []mongo.ClientBulkWrite{
				{Database: e.db, Collection: "gb", Model: mongo.NewClientInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: "gb-1"}, {Key: "a", Value: 7}})},
				{Database: e.db, Collection: "gt", Model: mongo.NewClientDeleteManyModel().SetFilter(bson.D{{Key: "a", Value: 1}})},
			})
		}
		// The document carries its own _id: the driver adds a new ObjectId
		// to one without, on every send, and the resend would differ.
		before := len(bf.Ran())
		_, err := send()
		id := heldID(t, err)
		t.Logf("held: %v", err)
		if st := e.cp.Review(t, id).Statement; !strings.Contains(st, e.db+".gb") || !strings.Contains(st, e.db+".gt") || !strings.Contains(st, `"bulkWrite"`) {
			t.Fatalf("the approver reads %s, want the one bulkWrite naming both namespaces", st)
		}
		if ran := bf.Ran()[before:]; len(ran) != 0 || e.count("gb", bson.D{}) != 0 || e.count("gt", bson.D{}) != 3 {
			t.Fatalf("the held bulkWrite ran something: front ran %q; gb has %d, gt %d", ran, e.count("gb", bson.D{}), e.count("gt", bson.D{}))
		}
		e.cp.Approve(t, id)
		res, err := send()
		if err != nil || res.InsertedCount != 1 || res.DeletedCount != 2 {
			t.Fatalf("the approved resend: %+v %v", res, err)
		}
		ran := bf.Ran()[before:]
		if len(ran) != 2 || !strings.HasPrefix(ran[0], "insert "+e.db+".gb") || !strings.HasPrefix(ran[1], "delete "+e.db+".gt") {
			t.Fatalf("the stand-in ran %q, want the insert then the delete, once each", ran)
		}
		t.Logf("the stand-in ran, once: %q", ran)
		if n := e.count("gb", bson.D{}); n != 1 {
			t.Fatalf("gb has %d documents, want 1", n)
		}
		_, err = send()
		if next := heldID(t, err); next == id {
			t.Fatalf("the next send reused approval %s", id)
		}
		if ran := bf.Ran()[before:]; len(ran) != 2 {
			t.Fatalf("the next send ran: %q", ran)
		}
		if st := e.cp.Review(t, id).Status; st != "EXECUTED" {
			t.Fatalf("approval %s, want EXECUTED", st)
		}
	})

	t.Run("Node driver MongoClient.bulkWrite", func(t *testing.T) {
		e.seed("nt", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}})
		before := len(bf.Ran())
		out := e.nodeBulk(addr)
		if !strings.Contains(out, "ERR 13 Unauthorized statement held for human approval") {
			t.Fatalf("node printed:\n%s", out)
		}
		ids := approvalIDs(out)
		if len(ids) != 1 {
			t.Fatalf("want one approval id:\n%s", out)
		}
		if ran := bf.Ran()[before:]; len(ran) != 0 || e.count("nb", bson.D{}) != 0 || e.count("nt", bson.D{}) != 2 {
			t.Fatalf("the held bulkWrite ran something: front ran %q", ran)
		}
		e.cp.Approve(t, ids[0])
		if out := e.nodeBulk(addr); !strings.Contains(out, "BULK inserted=1 deleted=1") {
			t.Fatalf("the approved resend:\n%s", out)
		}
		ran := bf.Ran()[before:]
		if len(ran) != 2 || !slices.ContainsFunc(ran, func(s string) bool { return strings.HasPrefix(s, "delete "+e.db+".nt") }) {
			t.Fatalf("the stand-in ran %q, want the insert and the delete once each", ran)
		}
		t.Logf("the stand-in ran, once: %q", ran)
	})
}

// nodeBulk runs node/bulk.mjs against the listener at addr.
func (e *env) nodeBulk(addr string) string {
	e.t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		e.t.Fatal("node is not installed (make deps)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "bulk.mjs", e.uri(addr, returnApp, nil), e.db)
	cmd.Dir = filepath.Join(harness.RepoRoot(e.t), "conformance", "mongodb", "node")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

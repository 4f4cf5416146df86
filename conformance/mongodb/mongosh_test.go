package mongodb

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// mongosh (the real binary, 2.12.0) with appName "… hoop-approval=return":
// db.t.drop() is held and mongosh prints the spec's text with the approval
// id (MongoServerError, code 13), the same shell goes on (a find works);
// after approval with the CLI the identical db.t.drop() runs; again, a new
// approval. db.t.deleteMany({a: 1}) and ({a: 2}) are two approvals.
func TestMongoshReturnModeLoop(t *testing.T) {
	t.Parallel() // slow (seeding, node start-up): overlaps with the others
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.seed("t", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}})
	const tryDrop = `try { printjson(db.t.drop()) } catch (err) { print("ERR " + err.code + " " + err.codeName + " " + err.message) }
print("alive " + db.t.countDocuments({}))`

	out := e.mongosh(addr, returnApp, tryDrop)
	if !strings.Contains(out, "ERR 13 Unauthorized statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval ") {
		t.Fatalf("mongosh did not print the spec's text:\n%s", out)
	}
	if !strings.Contains(out, "alive 2") {
		t.Fatalf("the shell did not go on after the denial:\n%s", out)
	}
	ids := approvalIDs(out)
	if len(ids) != 1 {
		t.Fatalf("want one approval id:\n%s", out)
	}
	e.cp.Approve(t, ids[0])
	out = e.mongosh(addr, returnApp, tryDrop)
	if !strings.Contains(out, "true") || strings.Contains(out, "ERR") || !strings.Contains(out, "alive 0") {
		t.Fatalf("the approved db.t.drop() did not run:\n%s", out)
	}
	if st := e.cp.Review(t, ids[0]).Status; st != "EXECUTED" {
		t.Fatalf("approval %s, want EXECUTED", st)
	}
	out = e.mongosh(addr, returnApp, tryDrop)
	if again := approvalIDs(out); len(again) != 1 || again[0] == ids[0] {
		t.Fatalf("sending it again must file a new approval:\n%s", out)
	}

	e.seed("t", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}})
	out = e.mongosh(addr, returnApp, `for (const a of [1, 2]) { try { db.t.deleteMany({a: a}) } catch (err) { print("ERR " + err.code + " " + err.message) } }`)
	if ids := approvalIDs(out); len(ids) != 2 {
		t.Fatalf("deleteMany({a: 1}) and ({a: 2}) must be two approvals:\n%s", out)
	}
	if e.count("t", bson.D{}) != 2 {
		t.Fatal("a held deleteMany ran")
	}
}

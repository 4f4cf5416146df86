package mongodb

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/hoophq/sidecar/conformance/harness"
)

// With an mcp block the denial leads with the approval id and names the
// approval_wait tool (the spec's MCP variant); a rejection with a reason is
// seen over MCP (approval_status: REJECTED, next stop, the reason), and the
// resend stays denied, naming the rejection.
func TestRejectionSeenOverMCP(t *testing.T) {
	e := newEnv(t)
	mcpAddr := harness.FreeAddr(t)
	addr, _ := e.sidecar(listenerOpts{mcp: mcpAddr})
	e.seed("t", bson.D{{Key: "a", Value: 1}})
	ctx := context.Background()
	coll := e.client(addr, returnApp, nil).Database(e.db).Collection("t")

	_, err := coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	id := heldID(t, err)
	if !strings.Contains(err.Error(), "approval "+id+": waiting for approval; call the MCP tool approval_wait with the approval id") {
		t.Fatalf("not the spec's MCP text: %v", err)
	}
	e.cp.Reject(t, id, "not on production data")

	st := harness.MCPApprovalStatus(t, mcpAddr, id)
	if st["status"] != "REJECTED" || st["next"] != "stop" || st["rejection_reason"] != "not on production data" {
		t.Fatalf("MCP answered %v", st)
	}
	_, err = coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	if again := heldID(t, err); again != id || !strings.Contains(err.Error(), "not on production data") {
		t.Fatalf("the resend after a rejection: %v", err)
	}
	if e.count("t", bson.D{}) != 1 {
		t.Fatal("a rejected command ran")
	}
}

// Two Sidecar processes (one config, one Control Plane) race one approved
// insert: exactly one runs it, the other is denied.
func TestTwoSidecarsRaceOneApproval(t *testing.T) {
	e := newEnv(t)
	addr1, _ := e.sidecar(listenerOpts{})
	addr2, _ := e.sidecar(listenerOpts{})
	ctx := context.Background()
	c1 := e.client(addr1, returnApp, nil).Database(e.db).Collection("once")
	c2 := e.client(addr2, returnApp, nil).Database(e.db).Collection("once")
	doc := bson.D{{Key: "_id", Value: "only-once"}, {Key: "v", Value: 1}}
	_, err := c1.InsertOne(ctx, doc)
	id := heldID(t, err)
	e.cp.Approve(t, id)

	var wg sync.WaitGroup
	errs := make([]error, 2)
	start := make(chan struct{})
	for i, send := range [](func() error){
		func() error { _, err := c1.InsertOne(ctx, doc); return err },
		func() error { _, err := c2.InsertOne(ctx, doc); return err },
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = send()
		}()
	}
	close(start)
	wg.Wait()
	ran := 0
	for _, err := range errs {
		if err == nil {
			ran++
		} else {
			heldID(t, err)
		}
	}
	if ran != 1 || e.count("once", bson.D{}) != 1 {
		t.Fatalf("%d of the two raced sends ran (errors %v), want exactly 1", ran, errs)
	}
	if st := e.cp.Review(t, id).Status; st != "EXECUTED" {
		t.Fatalf("approval %s, want EXECUTED", st)
	}
}

// The Control Plane stopped: a command that needs approval fails closed
// (code 96 OperationFailed, nothing run), a find keeps working.
func TestControlPlaneStoppedFailsClosed(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.seed("t", bson.D{{Key: "a", Value: 1}})
	ctx := context.Background()
	coll := e.client(addr, returnApp, nil).Database(e.db).Collection("t")
	if _, err := coll.CountDocuments(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}
	e.cp.Stop()
	_, err := coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	if err == nil || !strings.Contains(err.Error(), "(OperationFailed)") && !strings.Contains(err.Error(), "96") {
		t.Fatalf("held command with the Control Plane stopped: %v, want code 96", err)
	}
	t.Logf("fail-closed answer: %v", err)
	var n int64
	ctx2, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if n, err = coll.CountDocuments(ctx2, bson.D{}); err != nil || n != 1 {
		t.Fatalf("find with the Control Plane stopped: %d %v", n, err)
	}
}

package mongodb

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/hoophq/sidecar/conformance/harness"
)

// The Node driver (mongodb 7.x, node/loop.mjs) with appName "…
// hoop-approval=return": deleteMany({a: 1}) fails with code 13
// Unauthorized and the spec's text, the client goes on; after approval the
// identical deleteMany from a new client runs once.
func TestNodeDriverReturnMode(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.seed("t", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}})
	out := e.node(addr, "held")
	if !strings.Contains(out, "ERR 13 Unauthorized statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval ") ||
		!strings.Contains(out, "COUNT 2") {
		t.Fatalf("node printed:\n%s", out)
	}
	ids := approvalIDs(out)
	if len(ids) != 1 {
		t.Fatalf("want one approval id:\n%s", out)
	}
	e.cp.Approve(t, ids[0])
	if out := e.node(addr, "resend"); !strings.Contains(out, "DELETED 1") {
		t.Fatalf("the approved resend:\n%s", out)
	}
	if st := e.cp.Review(t, ids[0]).Status; st != "EXECUTED" {
		t.Fatalf("approval %s, want EXECUTED", st)
	}
}

// node runs node/loop.mjs against the listener at addr.
func (e *env) node(addr, phase string) string {
	e.t.Helper()
	dir := filepath.Join(harness.RepoRoot(e.t), "conformance", "mongodb", "node")
	if _, err := exec.LookPath("node"); err != nil {
		e.t.Fatal("node is not installed (make deps)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "loop.mjs", e.uri(addr, returnApp, nil), e.db, phase)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	return string(out)
}

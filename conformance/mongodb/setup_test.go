package mongodb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/hoophq/sidecar/conformance/harness"
)

const (
	sidecarToken = "test-sidecar-token"
	returnApp    = "agent hoop-approval=return"
)

// env is one reference Control Plane, the upstream, a fresh database name
// and the Sidecar listeners in front of them.
type env struct {
	t  *testing.T
	cp *harness.ControlPlane
	up upstream
	db string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	e := &env{t: t, up: mongoUpstream(t), db: "mongo_" + hex.EncodeToString(b)}
	e.cp = harness.StartControlPlane(t, harness.CPOptions{Sidecars: map[string]string{"test": sidecarToken}})
	t.Cleanup(func() {
		c := e.directClient()
		_ = c.Database(e.db).Drop(context.Background())
	})
	return e
}

// listenerOpts shapes one Sidecar config.
type listenerOpts struct {
	mode     string // return (default) or wait
	spend    string // sent (default) or accepted
	mcp      string // the mcp block's listen address ("": none)
	upstream string // default: the suite's upstream
	extra    string // more keys of the listener (e.g. tls:), one line each, indented
	// match replaces the listener's approval rules with one rule, "only",
	// of this match (a YAML flow mapping, e.g. "{effects: [UNBOUNDED]}").
	match string
}

// config is a Sidecar config with one mongodb listener on listen.
func (e *env) config(listen string, o listenerOpts) string {
	if o.mode == "" {
		o.mode = "wait"
	}
	if o.spend == "" {
		o.spend = "sent"
	}
	if o.upstream == "" {
		o.upstream = e.up.Addr
	}
	mcp := ""
	if o.mcp != "" {
		mcp = fmt.Sprintf("mcp: {listen: %s}\n", o.mcp)
	}
	rules, names := `  - name: mongo-destructive
    match: {actions: [DROP, DROP_DATABASE, DELETE, AGGREGATE_WRITE, BULK_WRITE, SERVER_JS]}
  - name: once-inserts
    match: {actions: [INSERT, UPDATE], targets: ["*.once"]}
`, "mongo-destructive, once-inserts"
	if o.match != "" {
		rules, names = fmt.Sprintf("  - name: only\n    match: %s\n", o.match), "only"
	}
	return fmt.Sprintf(`sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN, timeout: 2s}
log: {format: text, level: info}
audit: {file: "-"}
%sapproval_rules:
%slisteners:
  - name: mongo
    protocol: mongodb
    listen: %s
    upstream: %s
    mode: %s
    wait_timeout: 20s
    spend_approval_on: %s
    approval_rules: [%s]
%s`, e.cp.URL, mcp, rules, listen, o.upstream, o.mode, o.spend, names, o.extra)
}

// sidecar starts a Sidecar process and returns its listener's address.
func (e *env) sidecar(o listenerOpts) (string, *harness.Sidecar) {
	e.t.Helper()
	addr := harness.FreeAddr(e.t)
	s := harness.StartSidecar(e.t, harness.SidecarOptions{Config: e.config(addr, o), Token: sidecarToken})
	return addr, s
}

// uri is a connection string to addr (a listener or the upstream) with
// appName and extra query parameters.
func (e *env) uri(addr, appName string, extra url.Values) string {
	q := url.Values{"directConnection": {"true"}, "serverSelectionTimeoutMS": {"15000"}}
	if appName != "" {
		q.Set("appName", appName)
	}
	for k, v := range extra {
		q[k] = v
	}
	return (&url.URL{Scheme: "mongodb", Host: addr, Path: "/" + e.db, RawQuery: strings.ReplaceAll(q.Encode(), "+", "%20")}).String()
}

// client is a Go driver client to addr; retryable writes off so that a
// write is sent exactly once per call.
func (e *env) client(addr, appName string, extra url.Values) *mongo.Client {
	e.t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(e.uri(addr, appName, extra)).SetRetryWrites(false).SetRetryReads(false))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}

// directClient talks to the upstream without a Sidecar.
func (e *env) directClient() *mongo.Client {
	e.t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(e.up.URL))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}

// coll is collection name of the test database, direct.
func (e *env) direct(name string) *mongo.Collection {
	return e.directClient().Database(e.db).Collection(name)
}

func (e *env) count(name string, filter any) int64 {
	e.t.Helper()
	n, err := e.direct(name).CountDocuments(context.Background(), filter)
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (e *env) seed(name string, docs ...any) {
	e.t.Helper()
	if _, err := e.direct(name).InsertMany(context.Background(), docs); err != nil {
		e.t.Fatal(err)
	}
}

// mongosh runs the real mongosh against addr with script (--eval), and
// returns everything it printed.
func (e *env) mongosh(addr, appName, script string) string {
	e.t.Helper()
	return e.mongoshURI(e.uri(addr, appName, nil), script)
}

// mongoshURI runs the real mongosh with script (--eval) after connecting
// to the connection string uri, and returns everything it printed.
func (e *env) mongoshURI(uri, script string) string {
	e.t.Helper()
	bin := filepath.Join(harness.RepoRoot(e.t), "conformance", "mongodb", "node", "node_modules", ".bin", "mongosh")
	if _, err := os.Stat(bin); err != nil {
		e.t.Fatal("mongosh is not installed (make deps runs npm ci in conformance/mongodb/node)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--nodb", "--quiet", "--norc", "--eval",
		fmt.Sprintf("const db = connect(%q);\n%s", uri, script))
	cmd.Env = append(os.Environ(), "MONGOSH_DISABLE_TELEMETRY=1", "HOME="+e.t.TempDir())
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// approvalIDs returns the distinct approval ids the denial texts name.
func approvalIDs(s string) []string { return harness.ApprovalIDs(s) }

// heldID returns the approval id of a held-command error: a server error
// with code 13 Unauthorized and the spec's text.
func heldID(t *testing.T, err error) string {
	t.Helper()
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(13) {
		t.Fatalf("want a server error with code 13 (Unauthorized), got %v", err)
	}
	ids := approvalIDs(err.Error())
	if len(ids) != 1 {
		t.Fatalf("no approval id in %q", err.Error())
	}
	if !strings.Contains(err.Error(), "statement held for human approval") && !strings.Contains(err.Error(), "call the MCP tool approval_wait") {
		t.Fatalf("not the spec's text: %q", err.Error())
	}
	return ids[0]
}

func docs(n int, f func(i int) bson.D) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// clientURI is a Go driver client for a whole connection string.
func (e *env) clientURI(uri string) *mongo.Client {
	e.t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetRetryWrites(false).SetRetryReads(false))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}

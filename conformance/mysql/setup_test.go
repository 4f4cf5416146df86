package mysqlconf

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/conformance/harness"
)

const (
	sidecarToken = "test-sidecar-token"
	returnApp    = "demo hoop-approval=return"
)

// env is one reference Control Plane, a fresh database on the upstream
// and the Sidecar listeners in front of it.
type env struct {
	t  *testing.T
	cp *harness.ControlPlane
	up upstream
	db string
}

func newEnv(t *testing.T) *env { t.Helper(); return newEnvNamed(t, "mysql") }

// newEnvNamed is newEnv with a database named prefix_<random>, for suites
// that share the upstream with others and name what they create.
func newEnvNamed(t *testing.T, prefix string) *env {
	t.Helper()
	e := &env{t: t, up: pickUpstream(t)}
	b := make([]byte, 5)
	rand.Read(b)
	e.db = prefix + "_" + hex.EncodeToString(b)
	e.direct("CREATE DATABASE " + e.db)
	t.Cleanup(func() { e.adminExec("DROP DATABASE IF EXISTS " + e.db) })
	e.cp = harness.StartControlPlane(t, harness.CPOptions{Sidecars: map[string]string{"test": sidecarToken}})
	return e
}

// listenerOpts are the knobs of one mysql listener.
type listenerOpts struct {
	mode     string // return (default) or wait
	spend    string // sent (default) or accepted
	tls      string // extra listener lines (tls:, upstream_tls:)
	upstream string // default: the suite's upstream
	mcp      string // an mcp block's listen address (none when empty)
	cpURL    string // default: the env's Control Plane
	actions  string // the rule's actions, a YAML flow list (default: [DROP, TRUNCATE, DELETE, LOAD_DATA, UNKNOWN])
	match    string // the rule's whole match, a YAML flow map ({effects: [INSERT]}); replaces actions
	masking  string // a top-level masking_rules block (YAML, whole lines)
	masks    string // the listener's masking_rules, a YAML flow list ([pii])
}

// config is a Sidecar config with one mysql listener on listen.
func (e *env) config(listen string, o listenerOpts) string {
	if o.mode == "" {
		o.mode = "return"
	}
	if o.spend == "" {
		o.spend = "sent"
	}
	if o.upstream == "" {
		o.upstream = e.up.addr
	}
	if o.cpURL == "" {
		o.cpURL = e.cp.URL
	}
	if o.actions == "" {
		o.actions = "[DROP, TRUNCATE, DELETE, LOAD_DATA, UNKNOWN]"
	}
	match := "{actions: " + o.actions + "}"
	if o.match != "" {
		match = o.match
	}
	mcp := ""
	if o.mcp != "" {
		mcp = "mcp: {listen: " + o.mcp + "}\n"
	}
	mcp += o.masking
	if o.masks != "" {
		o.tls = "    masking_rules: " + o.masks + "\n" + o.tls
	}
	return fmt.Sprintf(`sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN, timeout: 2s}
log: {format: text, level: info}
audit: {file: "-"}
%sapproval_rules:
  - name: db-destructive
    match: %s
listeners:
  - name: my
    protocol: mysql
    listen: %s
    upstream: %s
    mode: %s
    wait_timeout: 20s
    spend_approval_on: %s
    approval_rules: [db-destructive]
%s`, o.cpURL, mcp, match, listen, o.upstream, o.mode, o.spend, o.tls)
}

// sidecar starts a Sidecar process with one mysql listener and returns the
// listener's address and the process.
func (e *env) sidecar(o listenerOpts) (string, *harness.Sidecar) {
	e.t.Helper()
	addr := harness.FreeAddr(e.t)
	s := harness.StartSidecar(e.t, harness.SidecarOptions{Config: e.config(addr, o), Token: sidecarToken})
	return addr, s
}

// connector returns a go-sql-driver connector to addr (the listener, or
// the upstream) on the env's database; programName sets the connection
// attribute program_name; binary protocol prepared statements are used
// (interpolateParams=false, the driver's default).
func (e *env) connector(addr, programName string, edit func(*mysql.Config)) *sql.DB {
	e.t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = e.up.user, e.up.password, "tcp", addr, e.db
	cfg.InterpolateParams, cfg.MultiStatements = false, true
	cfg.Timeout = 10 * time.Second
	if programName != "" {
		cfg.ConnectionAttributes = "program_name:" + programName
	}
	if edit != nil {
		edit(cfg)
	}
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	db := sql.OpenDB(c)
	e.t.Cleanup(func() { db.Close() })
	return db
}

// conn returns one connection (one session) to addr.
func (e *env) conn(addr, programName string, edit func(*mysql.Config)) *sql.Conn {
	e.t.Helper()
	c, err := e.connector(addr, programName, edit).Conn(context.Background())
	if err != nil {
		e.t.Fatalf("connect %s: %v", addr, err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

// direct runs SQL on the env's database, not through the Sidecar.
func (e *env) direct(sql string) {
	e.t.Helper()
	if err := e.adminExec(sql); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
}

func (e *env) adminExec(q string) error {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.MultiStatements = e.up.user, e.up.password, "tcp", e.up.addr, true
	if e.db != "" && !strings.HasPrefix(q, "CREATE DATABASE") && !strings.HasPrefix(q, "DROP DATABASE") {
		cfg.DBName = e.db
	}
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(c)
	defer db.Close()
	_, err = db.Exec(q)
	return err
}

// count runs a one-number query on the env's database, directly.
func (e *env) count(q string) int {
	e.t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = e.up.user, e.up.password, "tcp", e.up.addr, e.db
	c, _ := mysql.NewConnector(cfg)
	db := sql.OpenDB(c)
	defer db.Close()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// cli runs the real mariadb CLI against addr on the env's database, with
// input on stdin in one session (--force: it goes on after an error, as an
// agent's session would); it returns everything the CLI printed.
func (e *env) cli(addr, input string, args ...string) string {
	e.t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	all := append([]string{"--no-defaults", "-h", host, "-P", port, "-u", e.up.user, "--force", "--batch", "--connect-timeout=10"}, args...)
	if e.up.password != "" {
		all = append(all, "-p"+e.up.password)
	}
	all = append(all, e.db)
	cmd := exec.CommandContext(ctx, "mariadb", all...)
	cmd.Stdin = strings.NewReader(input)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// approvalIDs returns the distinct approval ids the denial texts name.
func approvalIDs(s string) []string { return harness.ApprovalIDs(s) }

// myErr returns the MySQL error err carries, failing unless its number is
// code.
func myErr(t *testing.T, err error, code uint16) *mysql.MySQLError {
	t.Helper()
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		t.Fatalf("want MySQL error %d, got %v", code, err)
	}
	if me.Number != code {
		t.Fatalf("error %d (%s), want %d", me.Number, me.Message, code)
	}
	return me
}

// heldID returns the approval id of a held-statement error (1227/42000).
func heldID(t *testing.T, err error) string {
	t.Helper()
	me := myErr(t, err, 1227)
	if string(me.SQLState[:]) != "42000" {
		t.Fatalf("SQLSTATE %s, want 42000", me.SQLState)
	}
	ids := approvalIDs(me.Message)
	if len(ids) != 1 {
		t.Fatalf("no approval id in %q", me.Message)
	}
	return ids[0]
}

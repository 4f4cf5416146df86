package mssqlconf

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mssql "github.com/microsoft/go-mssqldb"

	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

const (
	sidecarToken = "test-sidecar-token"
	returnApp    = "demo hoop-approval=return"
	// heldText is the spec's database text before the id (docs/mssql-listener.md, "Denials").
	heldText = "statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval "
)

// env is one reference Control Plane, a fresh database on the upstream
// and the Sidecar listeners in front of it.
type env struct {
	t        *testing.T
	cp       *harness.ControlPlane
	up       harness.Upstream
	mini     *tdstest.Mini // the stand-in, nil with a real SQL Server
	upAddr   string
	user, pw string
	db       string
	// caFile, when set, is the listener's certificate: encrypting clients
	// verify it (go-mssqldb certificate=, tsql ca file, Node ca) instead of
	// trusting any certificate (TDS 8.0 strict always verifies).
	caFile string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	up, mini := harness.MSSQLUpstream(t)
	u, err := url.Parse(up.URL)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	e := &env{t: t, up: up, mini: mini, upAddr: u.Host, user: u.User.Username(), pw: pw}
	b := make([]byte, 5)
	rand.Read(b)
	e.db = "mssql_" + hex.EncodeToString(b)
	e.directDB("master", "CREATE DATABASE "+e.db)
	// Registered first, so it runs last: after the Sidecars and clients.
	t.Cleanup(func() { e.execDB("master", "DROP DATABASE IF EXISTS "+e.db) })
	e.cp = harness.StartControlPlane(t, harness.CPOptions{Sidecars: map[string]string{"test": sidecarToken}})
	return e
}

// in returns a copy of the env whose helpers fail t (a subtest) rather
// than the test that made it.
func (e *env) in(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

// listenerOpts are the knobs of one mssql listener.
type listenerOpts struct {
	mode  string // return (default) or wait
	spend string // sent (default) or accepted
	extra string // extra listener lines (tls:)
	mcp   string // an mcp block's listen address (none when empty)
	// match is the approval rule's match (default: {actions: [DROP,
	// TRUNCATE, DELETE, UNKNOWN]}).
	match string
}

func (e *env) config(listen string, o listenerOpts) string {
	if o.mode == "" {
		o.mode = "return"
	}
	if o.spend == "" {
		o.spend = "sent"
	}
	if o.match == "" {
		o.match = "{actions: [DROP, TRUNCATE, DELETE, UNKNOWN]}"
	}
	mcp := ""
	if o.mcp != "" {
		mcp = "mcp: {listen: " + o.mcp + "}\n"
	}
	return fmt.Sprintf(`sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN, timeout: 2s}
log: {format: text, level: info}
audit: {file: "-"}
%sapproval_rules:
  - name: db-destructive
    match: %s
listeners:
  - name: sqlserver
    protocol: mssql
    listen: %s
    upstream: %s
    mode: %s
    wait_timeout: 20s
    spend_approval_on: %s
    approval_rules: [db-destructive]
%s`, e.cp.URL, mcp, o.match, listen, e.upAddr, o.mode, o.spend, o.extra)
}

// sidecar starts a Sidecar process with one mssql listener and returns the
// listener's address and the process.
func (e *env) sidecar(o listenerOpts) (string, *harness.Sidecar) {
	e.t.Helper()
	addr := harness.FreeAddr(e.t)
	s := harness.StartSidecar(e.t, harness.SidecarOptions{Config: e.config(addr, o), Token: sidecarToken})
	return addr, s
}

// dsn is a go-mssqldb v1.11.2 DSN for addr on the env's database with the
// upstream's login; encrypt is disable, false, true or strict (the server's
// certificate is verified against caFile when set, else trusted); app is
// the application name.
func (e *env) dsn(addr, encrypt, app string) string {
	q := url.Values{"database": {e.db}, "encrypt": {encrypt}, "dial timeout": {"10"}}
	switch {
	case encrypt == "disable":
	case e.caFile != "":
		q.Set("certificate", e.caFile)
	default:
		q.Set("TrustServerCertificate", "true")
	}
	if app != "" {
		q.Set("app name", app)
	}
	return (&url.URL{Scheme: "sqlserver", User: url.UserPassword(e.user, e.pw), Host: addr, RawQuery: q.Encode()}).String()
}

// open returns a go-mssqldb pool of one connection (one session) to addr.
func (e *env) open(addr, encrypt, app string) *sql.DB {
	e.t.Helper()
	db, err := sql.Open("sqlserver", e.dsn(addr, encrypt, app))
	if err != nil {
		e.t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	e.t.Cleanup(func() { db.Close() })
	return db
}

// direct runs T-SQL on the env's database, not through the Sidecar.
func (e *env) direct(q string) {
	e.t.Helper()
	e.directDB(e.db, q)
}

func (e *env) directDB(db, q string) {
	e.t.Helper()
	if err := e.execDB(db, q); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
}

func (e *env) execDB(db, q string) error {
	c, err := sql.Open("sqlserver", e.dsnUp(db))
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = c.ExecContext(ctx, q)
	return err
}

func (e *env) dsnUp(db string) string {
	return harness.MSSQLDSN(e.up.URL, "encrypt=disable&database="+url.QueryEscape(db))
}

// count runs a one-number query on the env's database, directly.
func (e *env) count(q string) int {
	e.t.Helper()
	return e.countDB(e.db, q)
}

// countDB runs a one-number query on database db, directly.
func (e *env) countDB(db, q string) int {
	e.t.Helper()
	c, err := sql.Open("sqlserver", e.dsnUp(db))
	if err != nil {
		e.t.Fatal(err)
	}
	defer c.Close()
	var n int
	if err := c.QueryRow(q).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// ran returns how many times the stand-in executed text in the env's
// database, or -1 with a real SQL Server (stand-in only: a real server's
// effect is checked with count instead).
func (e *env) ran(text string) int {
	if e.mini == nil {
		return -1
	}
	n := 0
	for _, x := range e.mini.Executed() {
		if strings.EqualFold(x.Database, e.db) && strings.EqualFold(x.Text, strings.TrimSpace(text)) {
			n++
		}
	}
	return n
}

// ranOnce fails unless the stand-in ran text exactly once (nothing to check
// on a real server: the callers check the effect on the data).
func (e *env) ranOnce(text string) {
	e.t.Helper()
	if n := e.ran(text); n != -1 && n != 1 {
		e.t.Fatalf("the stand-in ran %q %d times, want once", text, n)
	}
}

// tsql runs FreeTDS tsql against addr on the env's database with input on
// stdin; encryption is freetds.conf's setting (off, request, require). It
// returns everything tsql printed.
func (e *env) tsql(addr, encryption, input string) string {
	e.t.Helper()
	bin, err := exec.LookPath("tsql")
	if err != nil {
		e.t.Fatal("FreeTDS tsql is not installed: make deps installs freetds-bin (scripts/deps.d/mssql.sh)")
	}
	host, port, _ := net.SplitHostPort(addr)
	conf := filepath.Join(e.t.TempDir(), "freetds.conf")
	ca := ""
	if e.caFile != "" {
		ca = "\tca file = " + e.caFile + "\n"
	}
	if err := os.WriteFile(conf, []byte("[global]\n\ttds version = 7.4\n\tencryption = "+encryption+"\n"+ca), 0o644); err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-H", host, "-p", port, "-U", e.user, "-P", e.pw, "-D", e.db, "-o", "q")
	cmd.Env = append(cmd.Environ(), "FREETDSCONF="+conf)
	cmd.Stdin = strings.NewReader(input)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// approvalIDs returns the distinct approval ids the denial texts name.
func approvalIDs(s string) []string { return harness.ApprovalIDs(s) }

// msErr returns the SQL Server error err carries, failing unless its
// number is num.
func msErr(t *testing.T, err error, num int32) mssql.Error {
	t.Helper()
	var me mssql.Error
	if !errors.As(err, &me) {
		t.Fatalf("want SQL Server error %d, got %v", num, err)
	}
	if me.Number != num {
		t.Fatalf("error %d state %d (%s), want %d", me.Number, me.State, me.Message, num)
	}
	return me
}

// heldID returns the approval id of a held-statement error (229, state
// 120, class 14, the spec's text).
func heldID(t *testing.T, err error) string {
	t.Helper()
	me := msErr(t, err, 229)
	if me.State != 120 || me.Class != 14 || !strings.HasPrefix(me.Message, heldText) {
		t.Fatalf("held: state %d class %d %q", me.State, me.Class, me.Message)
	}
	ids := approvalIDs(me.Message)
	if len(ids) != 1 {
		t.Fatalf("no approval id in %q", me.Message)
	}
	return ids[0]
}

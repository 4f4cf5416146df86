package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hoophq/sidecar/conformance/harness"
)

const (
	sidecarToken = "test-sidecar-token"
	returnApp    = "demo hoop-approval=return"
)

// env is one reference Control Plane, a fresh database and the Sidecar
// listeners in front of it.
type env struct {
	t        *testing.T
	cp       *harness.ControlPlane
	dbURL    string // direct, admin
	db       string
	upstream string // host:port
}

func newEnv(t *testing.T) *env {
	t.Helper()
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatal("psql is not installed (make deps installs postgresql-client)")
	}
	e := &env{t: t, dbURL: harness.FreshDatabase(t)}
	u, err := url.Parse(e.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	e.db, e.upstream = strings.TrimPrefix(u.Path, "/"), u.Host
	if u.Port() == "" {
		e.upstream = net.JoinHostPort(u.Hostname(), "5432")
	}
	e.cp = harness.StartControlPlane(t, harness.CPOptions{Sidecars: map[string]string{"test": sidecarToken}})
	return e
}

// sidecarConfig is a Sidecar config with one postgres listener on listen,
// in wait mode, writing its audit trail to stdout.
func (e *env) sidecarConfig(listen, spend string) string {
	return fmt.Sprintf(`sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN, timeout: 2s}
log: {format: text, level: info}
audit: {file: "-"}
approval_rules:
  - name: db-destructive
    match: {actions: [DROP, TRUNCATE, DELETE]}
  - name: inserts
    match: {actions: [INSERT], targets: ["public.u", "public.once"]}
listeners:
  - name: pg
    protocol: postgres
    listen: %s
    upstream: %s
    mode: wait
    wait_timeout: 20s
    spend_approval_on: %s
    approval_rules: [db-destructive, inserts]
`, e.cp.URL, listen, e.upstream, spend)
}

// sidecar starts a Sidecar process with one postgres listener and returns
// the listener's address.
func (e *env) sidecar(spend string) string {
	e.t.Helper()
	addr, _ := e.sidecarProcess(e.sidecarConfig, spend)
	return addr
}

// sidecarProcess starts a Sidecar process from config(listen, spend) and
// returns the listener's address and the process.
func (e *env) sidecarProcess(config func(listen, spend string) string, spend string) (string, *harness.Sidecar) {
	e.t.Helper()
	addr := harness.FreeAddr(e.t)
	s := harness.StartSidecar(e.t, harness.SidecarOptions{Config: config(addr, spend), Token: sidecarToken})
	return addr, s
}

// url is a connection string to the listener at addr.
func (e *env) url(addr, appName string) string {
	q := url.Values{"sslmode": {"disable"}}
	if appName != "" {
		q.Set("application_name", appName)
	}
	// pgx reads "+" literally in a URL query: spaces must be %20.
	raw := strings.ReplaceAll(q.Encode(), "+", "%20")
	return (&url.URL{Scheme: "postgres", User: url.User("postgres"), Host: addr, Path: "/" + e.db, RawQuery: raw}).String()
}

func (e *env) connect(addr, appName string) *pgx.Conn {
	e.t.Helper()
	c, err := pgx.Connect(context.Background(), e.url(addr, appName))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// direct runs SQL on the database, not through the Sidecar.
func (e *env) direct(sql string) {
	e.t.Helper()
	c, err := pgx.Connect(context.Background(), e.dbURL)
	if err != nil {
		e.t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), sql); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
}

func (e *env) count(sql string) int {
	e.t.Helper()
	c, err := pgx.Connect(context.Background(), e.dbURL)
	if err != nil {
		e.t.Fatal(err)
	}
	defer c.Close(context.Background())
	var n int
	if err := c.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// psql runs the real psql binary against the listener at addr, feeding
// input on stdin in one session; it returns everything psql printed.
func (e *env) psql(addr, appName, input string) string {
	e.t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	conninfo := fmt.Sprintf("host=%s port=%s user=postgres dbname=%s sslmode=disable application_name='%s'", host, port, e.db, appName)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "psql", "-X", "-v", "ON_ERROR_STOP=0", conninfo)
	cmd.Stdin = strings.NewReader(input)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// approvalIDs returns the distinct approval ids the denial texts name.
func approvalIDs(s string) []string { return harness.ApprovalIDs(s) }

func pgErr(t *testing.T, err error, code string) *pgconn.PgError {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("want PostgreSQL error %s, got %v", code, err)
	}
	if pe.Code != code {
		t.Fatalf("SQLSTATE %s (%s), want %s", pe.Code, pe.Message, code)
	}
	return pe
}

// heldID returns the approval id of a held-statement error.
func heldID(t *testing.T, err error) string {
	t.Helper()
	pe := pgErr(t, err, "42501")
	ids := approvalIDs(pe.Message)
	if len(ids) != 1 {
		t.Fatalf("no approval id in %q", pe.Message)
	}
	return ids[0]
}

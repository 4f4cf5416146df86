package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// upstreamAddr is the PostgreSQL server the tests pass through to (user
// postgres, trust): HOOP_TEST_PG_ADDR (host:port), else the host of
// HOOP_TEST_POSTGRES_URL (the conformance suites' variable), else the local
// server.
func upstreamAddr() string {
	if a := os.Getenv("HOOP_TEST_PG_ADDR"); a != "" {
		return a
	}
	if u, err := url.Parse(os.Getenv("HOOP_TEST_POSTGRES_URL")); err == nil && u.Host != "" {
		if u.Port() == "" {
			return net.JoinHostPort(u.Hostname(), "5432")
		}
		return u.Host
	}
	return "127.0.0.1:5432"
}

// fixture is one listener in front of a fresh database.
type fixture struct {
	t    testing.TB
	cp   *fakecp.CP
	addr string // the listener
	db   string
	set  app.ListenerSettings
	l    *app.Listener
	// snapshot, when set, replaces the session's per-unit settings read.
	snapshot atomic.Pointer[func(*app.Listener) *app.ListenerSettings]
}

type option func(*app.ListenerSettings, *app.CoreOptions)

func withMode(m app.Mode) option {
	return func(s *app.ListenerSettings, _ *app.CoreOptions) { s.Mode = m }
}
func withSpend(sp ports.SpendOn) option {
	return func(s *app.ListenerSettings, _ *app.CoreOptions) { s.SpendOn = sp }
}
func withMCP() option { return func(_ *app.ListenerSettings, o *app.CoreOptions) { o.WithMCP = true } }
func withApproval(name string, m domain.Match) option {
	return func(s *app.ListenerSettings, _ *app.CoreOptions) {
		s.Approvals = append(s.Approvals, domain.ApprovalRule{Name: name, Match: m})
	}
}
func withPolicy(name, msg string, m domain.Match) option {
	return func(s *app.ListenerSettings, _ *app.CoreOptions) {
		s.Policies = append(s.Policies, domain.PolicyRule{Name: name, Match: m, Message: msg})
	}
}
func withTLS(cert, key string) option {
	return func(s *app.ListenerSettings, _ *app.CoreOptions) { s.TLS = app.TLSServer{CertFile: cert, KeyFile: key} }
}
func withUpstream(addr string, t app.TLSClient) option {
	return func(s *app.ListenerSettings, _ *app.CoreOptions) { s.Upstream, s.UpstreamTLS = addr, t }
}

// destructive is the rule most tests use.
var destructive = domain.Match{Actions: []string{"DROP", "TRUNCATE", "DELETE"}}

// newFixture creates a database and starts a listener (return mode by
// default, rule db-destructive) in front of it.
func newFixture(t testing.TB, opts ...option) *fixture {
	t.Helper()
	return newFixtureNamed(t, "hoop_pg", opts...)
}

// newFixtureNamed is newFixture with a database named prefix_<random>.
func newFixtureNamed(t testing.TB, prefix string, opts ...option) *fixture {
	t.Helper()
	f := &fixture{t: t, cp: fakecp.New(nil), db: prefix + "_" + randomHex(6)}
	f.set = app.ListenerSettings{Name: "pg", Protocol: "postgres", Upstream: upstreamAddr(), Mode: app.ModeReturn,
		SpendOn: ports.SpendOnSent, WaitTimeout: time.Minute}
	co := app.CoreOptions{Sidecar: "test", CP: f.cp}
	for _, o := range opts {
		o(&f.set, &co)
	}
	if len(f.set.Approvals) == 0 {
		f.set.Approvals = []domain.ApprovalRule{{Name: "db-destructive", Match: destructive}}
	}
	for i := range f.set.Approvals {
		if err := f.set.Approvals[i].Match.Compile(); err != nil {
			t.Fatal(err)
		}
	}
	for i := range f.set.Policies {
		if err := f.set.Policies[i].Match.Compile(); err != nil {
			t.Fatal(err)
		}
	}
	f.createDB()
	core := app.NewCore(co)
	core.Watcher.Interval = 50 * time.Millisecond // wait mode polls the fake often
	f.l = core.Listener(f.set)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	done := make(chan struct{})
	p := New(log)
	p.snapshot = func(l *app.Listener) *app.ListenerSettings {
		if h := f.snapshot.Load(); h != nil {
			return (*h)(l)
		}
		return l.Settings()
	}
	go func() {
		defer close(done)
		p.Serve(ctx, ln, f.l)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return f
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (f *fixture) adminURL(db string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", f.set.Upstream, db)
}

func (f *fixture) createDB() {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, f.adminURL("postgres"))
	if err != nil {
		f.t.Fatalf("no PostgreSQL at %s (set HOOP_TEST_PG_ADDR): %v", f.set.Upstream, err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+f.db); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() {
		c, err := pgx.Connect(ctx, f.adminURL("postgres"))
		if err != nil {
			f.t.Error(err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+f.db+" WITH (FORCE)"); err != nil {
			f.t.Error(err)
		}
	})
}

// direct runs SQL on the database without the listener.
func (f *fixture) direct(sql string, args ...any) {
	f.t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, f.adminURL(f.db))
	if err != nil {
		f.t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql, args...); err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
}

// count returns SELECT count(*) of a query, run directly.
func (f *fixture) count(sql string, args ...any) int {
	f.t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, f.adminURL(f.db))
	if err != nil {
		f.t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// url is a connection string through the listener.
func (f *fixture) url(appName string) string {
	host, port, _ := net.SplitHostPort(f.addr)
	u := fmt.Sprintf("postgres://postgres@%s:%s/%s?sslmode=disable", host, port, f.db)
	if appName != "" {
		u += "&application_name=" + strings.ReplaceAll(strings.ReplaceAll(appName, " ", "%20"), "=", "%3D")
	}
	return u
}

// connect opens a pgx connection through the listener.
func (f *fixture) connect(appName string) *pgx.Conn {
	f.t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, f.url(appName))
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// psql runs the real psql binary through the listener with input on stdin,
// in one session, and returns what it printed (stdout and stderr). extra
// conninfo settings override the defaults (the last one wins in libpq).
func (f *fixture) psql(appName, input string, extra ...string) string {
	f.t.Helper()
	host, port, _ := net.SplitHostPort(f.addr)
	conninfo := fmt.Sprintf("host=%s port=%s user=postgres dbname=%s application_name='%s'", host, port, f.db, appName)
	if len(extra) > 0 {
		conninfo += " " + strings.Join(extra, " ")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "psql", "-X", "-v", "ON_ERROR_STOP=0", conninfo)
	cmd.Stdin = strings.NewReader(input)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10", "PGSSLMODE=prefer")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

var approvalID = regexp.MustCompile(`approval (ap-\d+)`)

// ids returns the distinct approval ids in s, in order.
func ids(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range approvalID.FindAllStringSubmatch(s, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

func (f *fixture) approve(id string) {
	f.t.Helper()
	if err := f.cp.Decide(id, domain.StatusApproved, ""); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) status(id string) domain.Status {
	f.t.Helper()
	a, err := f.cp.Get(context.Background(), id)
	if err != nil {
		f.t.Fatal(err)
	}
	return a.Status
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

func pgxConnect(ctx context.Context, url string) (*pgx.Conn, error) { return pgx.Connect(ctx, url) }

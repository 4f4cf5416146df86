package mysql

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// agentConn is one go-sql-driver connection as user agent to addr, with
// multi-statement texts allowed.
func agentConn(t *testing.T, addr string) *sql.Conn {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.MultiStatements = "agent", "pw", "tcp", addr, true
	c, _ := mysql.NewConnector(cfg)
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// A statement whose SQL the listener cannot see (EXECUTE of a PREPARE FROM
// @var, or of a name it never saw prepared) is UNKNOWN; a listener whose
// rules do not name UNKNOWN must refuse it (fail closed, 1235), not run it:
// @x may hold DELETE.
func TestUnknownStatementFailsClosed(t *testing.T) {
	addr, _, _ := serveListener(t, upstreamStandIn(t), 0)
	conn := agentConn(t, addr)
	ctx := context.Background()
	for _, q := range []string{
		"SET @x = 'DELETE FROM t'; PREPARE s FROM @x; EXECUTE s",
		"EXECUTE never_prepared",
	} {
		_, err := conn.ExecContext(ctx, q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1235 {
			t.Errorf("%q: %v, want ERR 1235 (cannot be checked)", q, err)
		}
	}
	if _, err := conn.ExecContext(ctx, "SELECT 1"); err != nil {
		t.Fatalf("the connection after the refusals: %v", err)
	}
}

// auditLog is an in-memory audit sink and metrics counter.
type auditLog struct {
	mu        sync.Mutex
	events    []ports.AuditEvent
	decisions map[string]int
}

func (a *auditLog) Record(e ports.AuditEvent) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.events = append(a.events, e)
}
func (a *auditLog) Statement(_, decision string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.decisions == nil {
		a.decisions = map[string]int{}
	}
	a.decisions[decision]++
}
func (a *auditLog) ApprovalFiled(string) {}
func (a *auditLog) Claim(string, bool)   {}
func (a *auditLog) count(d string) int   { a.mu.Lock(); defer a.mu.Unlock(); return a.decisions[d] }
func (a *auditLog) all() []ports.AuditEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.events)
}

// serveAudited serves a mysql listener in front of upstream with the given
// approval rules (none: a listener with no rules), recording its audit
// trail and metrics in the returned log.
func serveAudited(t *testing.T, upstream string, actions ...string) (string, *auditLog) {
	t.Helper()
	s := app.ListenerSettings{Name: "gatecall-audit", Protocol: "mysql", Mode: app.ModeReturn, SpendOn: ports.SpendOnSent, Upstream: upstream}
	for _, a := range actions {
		r := domain.ApprovalRule{Name: "rule-" + a, Match: domain.Match{Actions: []string{a}}}
		if err := r.Match.Compile(); err != nil {
			t.Fatal(err)
		}
		s.Approvals = append(s.Approvals, r)
	}
	log := &auditLog{}
	l := app.NewCore(app.CoreOptions{Sidecar: "unit", CP: fakecp.New(nil), Audit: log, Metrics: log}).Listener(s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); New(nil).Serve(ctx, ln, l) }()
	t.Cleanup(func() { cancel(); l.EndDrain(); <-done })
	return ln.Addr().String(), log
}

// A statement refused as uncheckable is a decision like any other: the
// audit trail records deny_uncheckable with the statement and why, and the
// metrics count it.
func TestUncheckableRefusalIsAudited(t *testing.T) {
	addr, log := serveAudited(t, upstreamStandIn(t), "DELETE")
	conn := agentConn(t, addr)
	_, err := conn.ExecContext(context.Background(), "EXECUTE never_prepared")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1235 {
		t.Fatalf("EXECUTE never_prepared: %v, want ERR 1235", err)
	}
	var found bool
	for _, e := range log.all() {
		if e.Decision == "deny_uncheckable" && strings.Contains(e.Statement, "EXECUTE never_prepared") && e.Error != "" {
			found = true
		}
	}
	if !found || log.count("deny_uncheckable") != 1 {
		t.Fatalf("audit %+v, metrics %v: want one deny_uncheckable with the statement and why", log.all(), log.decisions)
	}
}

// A listener none of whose rules could match a statement (it has none)
// never refuses it as uncheckable: it reaches the upstream (issue 31).
func TestNoRulesNothingUncheckable(t *testing.T) {
	addr, log := serveAudited(t, upstreamStandIn(t))
	conn := agentConn(t, addr)
	for _, q := range []string{"EXECUTE never_prepared", "SET @x = 'DELETE FROM t'; PREPARE s FROM @x; EXECUTE s"} {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Errorf("%q on a listener without rules: %v, want it forwarded", q, err)
		}
	}
	if n := log.count("deny_uncheckable"); n != 0 {
		t.Fatalf("%d deny_uncheckable on a listener without rules", n)
	}
}

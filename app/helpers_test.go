package app_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// recorder is an in-memory ports.AuditSink.
type recorder struct {
	mu     sync.Mutex
	events []ports.AuditEvent
}

func (r *recorder) Record(e ports.AuditEvent) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) decisions() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e.Decision)
	}
	return out
}

// env is one core on a fake Control Plane with one postgres-like listener:
// DELETE needs approval (rule db-destructive), DROP_DATABASE is denied by
// policy (no-drop-db), anything else is allowed.
type env struct {
	cp    *fakecp.CP
	core  *app.Core
	l     *app.Listener
	audit *recorder
}

type envOpts struct {
	mode    app.Mode
	spend   ports.SpendOn
	withMCP bool
	cp      ports.ControlPlane // default: the fake
	noCP    bool
	wait    time.Duration
}

func newEnv(t *testing.T, o envOpts) *env {
	t.Helper()
	e := &env{cp: fakecp.New(nil), audit: &recorder{}}
	var cp ports.ControlPlane = e.cp
	if o.cp != nil {
		cp = o.cp
	}
	if o.noCP {
		cp = nil
	}
	e.core = app.NewCore(app.CoreOptions{Sidecar: "test", CP: cp, Audit: e.audit, WithMCP: o.withMCP})
	e.core.Watcher.Interval = 20 * time.Millisecond
	approval := domain.ApprovalRule{Name: "db-destructive", Match: domain.Match{Actions: []string{"DELETE"}}}
	policy := domain.PolicyRule{Name: "no-drop-db", Match: domain.Match{Actions: []string{"DROP_DATABASE"}},
		Message: "dropping a database is never allowed"}
	for _, m := range []*domain.Match{&approval.Match, &policy.Match} {
		if err := m.Compile(); err != nil {
			t.Fatal(err)
		}
	}
	if o.mode == "" {
		o.mode = app.ModeReturn
	}
	if o.spend == "" {
		o.spend = ports.SpendOnSent
	}
	e.l = e.core.Listener(app.ListenerSettings{Name: "pg", Protocol: "postgres", Mode: o.mode, SpendOn: o.spend,
		WaitTimeout: o.wait, Approvals: []domain.ApprovalRule{approval}, Policies: []domain.PolicyRule{policy}})
	return e
}

// stmt is a statement of the given action with its text and parameters.
func stmt(action, text string, params ...string) app.Statement {
	c := text
	for _, p := range params {
		c += "\x00" + p
	}
	return app.Statement{Identity: "agent", Canonical: []byte(c), Display: text,
		Analysis: domain.Analysis{Actions: []string{action}}, Client: "127.0.0.1:50000"}
}

var deleteInvoice = stmt("DELETE", "DELETE FROM invoices WHERE id = $1", "42")

func (e *env) check(st app.Statement) app.Outcome {
	return e.l.Check(context.Background(), st)
}

// status returns the fake's stored status of id.
func (e *env) status(t *testing.T, id string) domain.Status {
	t.Helper()
	for _, r := range e.cp.Records() {
		if r.ID == id {
			return r.Status
		}
	}
	t.Fatalf("no record %s", id)
	return ""
}

// mustDeny returns o's denial or fails.
func mustDeny(t *testing.T, o app.Outcome) *domain.Denial {
	t.Helper()
	if o.Forward || o.Denial == nil {
		t.Fatalf("outcome %+v, want a denial", o)
	}
	return o.Denial
}

package app_test

import (
	"context"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// skipping is an audit sink configured with audit.skip_allows: it keeps
// every decision but plain allows (ports.AllowSkipper).
type skipping struct{ recorder }

func (*skipping) SkipsAllows() bool { return true }

// rendered returns st with Display moved into a Render that counts its calls.
func rendered(st app.Statement, calls *int) app.Statement {
	text := st.Display
	st.Display = ""
	st.Render = func() string { *calls++; return text }
	return st
}

func TestRenderNotCalledForAllowWithoutAuditOfAllows(t *testing.T) {
	for name, sink := range map[string]ports.AuditSink{"no audit sink": nil, "skip_allows": &skipping{}} {
		t.Run(name, func(t *testing.T) {
			core := app.NewCore(app.CoreOptions{Sidecar: "test", CP: fakecp.New(nil), Audit: sink})
			l := core.Listener(app.ListenerSettings{Name: "pg", Protocol: "postgres", Mode: app.ModeReturn})
			calls := 0
			if out := l.Check(context.Background(), rendered(stmt("SELECT", "SELECT 1"), &calls)); !out.Forward {
				t.Fatalf("outcome %+v, want forward", out)
			}
			if calls != 0 {
				t.Fatalf("Render called %d times for a plain allow, want 0", calls)
			}
		})
	}
}

func TestRenderOnceForAllowRecordedByAudit(t *testing.T) {
	e := newEnv(t, envOpts{})
	calls := 0
	if out := e.check(rendered(stmt("SELECT", "SELECT * FROM invoices"), &calls)); !out.Forward {
		t.Fatalf("outcome %+v, want forward", out)
	}
	if calls != 1 {
		t.Fatalf("Render called %d times, want 1", calls)
	}
	if got := e.audit.events; len(got) != 1 || got[0].Decision != "allow" || got[0].Statement != "SELECT * FROM invoices" {
		t.Fatalf("audit %+v, want one allow line with the statement", got)
	}
}

func TestRenderOnceForHeldStatement(t *testing.T) {
	e := newEnv(t, envOpts{})
	calls := 0
	mustDeny(t, e.check(rendered(deleteInvoice, &calls)))
	if calls != 1 {
		t.Fatalf("Render called %d times for a held statement, want 1", calls)
	}
	recs := e.cp.Records()
	if len(recs) != 1 || recs[0].Statement != deleteInvoice.Display {
		t.Fatalf("Control Plane records %+v, want one with %q", recs, deleteInvoice.Display)
	}
	for _, ev := range e.audit.events {
		if ev.Statement != deleteInvoice.Display {
			t.Fatalf("audit line %+v, want statement %q", ev, deleteInvoice.Display)
		}
	}
	if len(e.audit.events) == 0 {
		t.Fatal("no audit line for the held statement")
	}
}

func TestRenderOnceForPolicyDenial(t *testing.T) {
	e := newEnv(t, envOpts{})
	calls := 0
	mustDeny(t, e.check(rendered(stmt("DROP_DATABASE", "DROP DATABASE prod"), &calls)))
	if calls != 1 {
		t.Fatalf("Render called %d times, want 1", calls)
	}
	if got := e.audit.events; len(got) != 1 || got[0].Statement != "DROP DATABASE prod" {
		t.Fatalf("audit %+v, want the statement on the deny_policy line", got)
	}
}

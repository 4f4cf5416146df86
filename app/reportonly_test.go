package app_test

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
)

// counts is a ports.Metrics that counts Statement decisions.
type counts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counts) Statement(_, decision string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[decision]++
}
func (c *counts) ApprovalFiled(string) {}
func (c *counts) Claim(string, bool)   {}
func (c *counts) get(d string) int     { c.mu.Lock(); defer c.mu.Unlock(); return c.n[d] }

// ruleEnv is a core on a fake Control Plane with one listener whose rules
// are given, and a metrics counter.
func ruleEnv(t *testing.T, s app.ListenerSettings) (*app.Listener, *fakecp.CP, *recorder, *counts) {
	t.Helper()
	cp, rec, m := fakecp.New(nil), &recorder{}, &counts{}
	core := app.NewCore(app.CoreOptions{Sidecar: "test", CP: cp, Audit: rec, Metrics: m})
	for i := range s.Policies {
		if err := s.Policies[i].Match.Compile(); err != nil {
			t.Fatal(err)
		}
	}
	for i := range s.Approvals {
		if err := s.Approvals[i].Match.Compile(); err != nil {
			t.Fatal(err)
		}
	}
	s.Name, s.Protocol, s.Mode = "payments", "postgres", app.ModeReturn
	return core.Listener(s), cp, rec, m
}

func effectStmt(text string, effects ...string) app.Statement {
	return app.Statement{Identity: "agent-1", Canonical: []byte(text), Display: text,
		Analysis: domain.Analysis{Actions: []string{"DELETE"}, Effects: effects}}
}

func TestReportOnlyRuleLetsTheStatementRunAndRecordsWouldHold(t *testing.T) {
	l, cp, rec, m := ruleEnv(t, app.ListenerSettings{
		Policies:  []domain.PolicyRule{{Name: "try-no-deletes", Match: domain.Match{Effects: []string{"DELETE"}}, ReportOnly: true}},
		Approvals: []domain.ApprovalRule{{Name: "try-destructive", Match: domain.Match{Preset: "destructive"}, ReportOnly: true}},
	})
	for _, decide := range []func(app.Statement) app.Outcome{
		func(st app.Statement) app.Outcome { return l.Check(context.Background(), st) },
		func(st app.Statement) app.Outcome { return l.Decide(l.Settings(), st, nil) }, // the database listeners' fast path
	} {
		rec.events = nil
		if o := decide(effectStmt("DELETE FROM t WHERE id = 1", "DELETE")); !o.Forward {
			t.Fatalf("a report-only rule held the statement: %+v", o)
		}
		if got := rec.decisions(); !reflect.DeepEqual(got, []string{"would_deny", "would_hold", "allow"}) {
			t.Fatalf("audit %v", got)
		}
		if e := rec.events[1]; e.Rule != "try-destructive" || e.Statement != "DELETE FROM t WHERE id = 1" || e.Identity != "agent-1" {
			t.Fatalf("would_hold line %+v", e)
		}
	}
	if n := len(cp.Records()); n != 0 {
		t.Fatalf("%d approvals filed for report-only rules", n)
	}
	if m.get("would_hold") != 2 || m.get("would_deny") != 2 || m.get("allow") != 2 {
		t.Fatalf("metrics %v", m.n)
	}
}

func TestReportOnlyThenEnforcingRule(t *testing.T) {
	l, cp, rec, _ := ruleEnv(t, app.ListenerSettings{Approvals: []domain.ApprovalRule{
		{Name: "try-deletes", Match: domain.Match{Effects: []string{"DELETE"}}, ReportOnly: true},
		{Name: "unbounded", Match: domain.Match{Effects: []string{"UNBOUNDED"}}},
	}})
	d := mustDeny(t, l.Check(context.Background(), effectStmt("DELETE FROM t", "DELETE", "UNBOUNDED")))
	if d.Rule != "unbounded" || len(cp.Records()) != 1 || cp.Records()[0].ApprovalRule != "unbounded" {
		t.Fatalf("denial %+v, filed %+v", d, cp.Records())
	}
	if got := rec.decisions(); !reflect.DeepEqual(got, []string{"would_hold", "deny_approval"}) {
		t.Fatalf("audit %v", got)
	}
}

func TestIdentitiesAndTextThroughTheGate(t *testing.T) {
	l, _, _, _ := ruleEnv(t, app.ListenerSettings{
		Policies:  []domain.PolicyRule{{Name: "agents-no-sleep", Match: domain.Match{Identities: []string{"agent-*"}, Text: `(?i)pg_sleep`}}},
		Approvals: []domain.ApprovalRule{{Name: "agents-deletes", Match: domain.Match{Effects: []string{"DELETE"}, Identities: []string{"agent-*"}}}},
	})
	sleep := app.Statement{Identity: "agent-1", Render: func() string { return "SELECT PG_SLEEP(1)" }, Canonical: []byte("x")}
	if d := mustDeny(t, l.Decide(l.Settings(), sleep, nil)); d.Kind != domain.DeniedByPolicy {
		t.Fatalf("denial %+v", d)
	}
	sleep.Identity = "alice"
	if o := l.Decide(l.Settings(), sleep, nil); !o.Forward {
		t.Fatalf("alice's statement: %+v", o)
	}
	del := effectStmt("DELETE FROM t WHERE id = 1", "DELETE")
	if d := mustDeny(t, l.Decide(l.Settings(), del, nil)); d.Rule != "agents-deletes" {
		t.Fatalf("denial %+v", d)
	}
	del.Identity = "alice"
	if o := l.Decide(l.Settings(), del, nil); !o.Forward {
		t.Fatalf("alice's DELETE: %+v", o)
	}
	// An adapter's Evaluation made without the facts is only a bound: the
	// gate decides again with them (http passes one).
	del.Identity = ""
	del.IdentityValues = map[string][]string{"x-agent": {"agent-9"}}
	s := *l.Settings()
	s.IdentityKeys = []string{"x-agent"}
	ev := app.Evaluate(&s, del.Analysis)
	if !ev.Tentative || ev.Verdict != domain.VerdictApproval || !app.NeedsPayload(&s, del.Analysis) {
		t.Fatalf("bound %+v", ev)
	}
	del.Evaluation = &ev
	if d := mustDeny(t, l.CheckWith(context.Background(), &s, del)); d.Rule != "agents-deletes" {
		t.Fatalf("http-like denial %+v", d)
	}
	del.IdentityValues = map[string][]string{"x-agent": {"human"}}
	if o := l.CheckWith(context.Background(), &s, del); !o.Forward {
		t.Fatalf("human's DELETE: %+v", o)
	}
}

func TestDecidingKeepsEveryPartWhenTheRulesNeedFacts(t *testing.T) {
	l, _, _, _ := ruleEnv(t, app.ListenerSettings{
		Policies:  []domain.PolicyRule{{Name: "agents-no-delete", Match: domain.Match{Effects: []string{"DELETE"}, Identities: []string{"agent-*"}}}},
		Approvals: []domain.ApprovalRule{{Name: "updates", Match: domain.Match{Effects: []string{"UPDATE"}}}},
	})
	s := l.Settings()
	parts := []domain.Analysis{{Effects: []string{"DELETE"}}, {Effects: []string{"UPDATE"}}}
	st := app.Statement{Identity: "alice", Display: "DELETE …; UPDATE …", Canonical: []byte("x"), Analysis: app.Deciding(s, parts)}
	// For alice the DELETE is allowed, but the UPDATE of the same text is held.
	if d := mustDeny(t, l.Decide(s, st, nil)); d.Rule != "updates" {
		t.Fatalf("denial %+v", d)
	}
	st.Identity = "agent-2"
	if d := mustDeny(t, l.Decide(s, st, nil)); d.Kind != domain.DeniedByPolicy {
		t.Fatalf("denial %+v", d)
	}
	if got := app.Covered(s, parts); len(got) != 2 {
		t.Fatalf("Covered = %v, want both parts (one may be covered)", got)
	}
}

// A listener whose rules are all report-only refuses nothing as
// uncheckable, as a listener without rules: the rules are as if absent.
func TestReportOnlyRulesDoNotMakeAListenerFailClosed(t *testing.T) {
	l, _, rec, _ := ruleEnv(t, app.ListenerSettings{
		Approvals: []domain.ApprovalRule{{Name: "try-unknown", Match: domain.Match{Preset: "unclassifiable"}, ReportOnly: true}},
	})
	st := app.Statement{Display: "SELECT * FROM", Analysis: domain.Analysis{Actions: []string{domain.ActionUnknown}},
		Unread: domain.Unread{Why: "the parser refused it"}}
	if o := l.Decide(l.Settings(), st, nil); !o.Forward {
		t.Fatalf("refused: %+v", o)
	}
	if got := rec.decisions(); !reflect.DeepEqual(got, []string{"would_hold", "allow"}) {
		t.Fatalf("audit %v", got)
	}
}

// A report-only rule's match on a part that does not decide its unit (the
// DELETE of "SELECT 1; DELETE …") is recorded too.
func TestReportOnlyMatchOnAnyPartOfAUnit(t *testing.T) {
	l, _, rec, _ := ruleEnv(t, app.ListenerSettings{
		Approvals: []domain.ApprovalRule{{Name: "try-deletes", Match: domain.Match{Effects: []string{"DELETE"}}, ReportOnly: true}},
	})
	s := l.Settings()
	parts := []domain.Analysis{{Actions: []string{"SELECT"}, Effects: []string{"READ"}}, {Actions: []string{"DELETE"}, Effects: []string{"DELETE"}}}
	st := app.Statement{Display: "SELECT 1; DELETE FROM t WHERE id = 1", Analysis: app.Deciding(s, parts)}
	if o := l.Decide(s, st, nil); !o.Forward {
		t.Fatalf("held: %+v", o)
	}
	if got := rec.decisions(); !reflect.DeepEqual(got, []string{"would_hold", "allow"}) {
		t.Fatalf("audit %v", got)
	}
}

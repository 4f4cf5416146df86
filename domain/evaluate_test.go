package domain

import "testing"

func compiled(t *testing.T, m Match) Match {
	t.Helper()
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestIdentities(t *testing.T) {
	m := compiled(t, Match{Actions: []string{"DELETE"}, Identities: []string{"agent-*", "svc?"}})
	del := Analysis{Actions: []string{"DELETE"}}
	for _, c := range []struct {
		ids  []string
		want bool
	}{
		{[]string{"agent-7"}, true},
		{[]string{"agent-"}, true},
		{[]string{"Agent-7"}, false}, // login names compare case-sensitively
		{[]string{"svc1"}, true},
		{[]string{"svc12"}, false},
		{[]string{"alice"}, false},
		{nil, false}, // no identity: a rule on identities does not apply
		{[]string{"alice", "agent-x/team"}, true},
		{[]string{"x agent-1"}, false}, // anchored
	} {
		if got := m.MatchesWith(del, Facts{Identities: c.ids}); got != c.want {
			t.Errorf("identities %q: %v, want %v", c.ids, got, c.want)
		}
	}
	if m.MatchesWith(Analysis{Actions: []string{"SELECT"}}, Facts{Identities: []string{"agent-1"}}) {
		t.Fatal("identities do not AND with actions")
	}
}

func TestText(t *testing.T) {
	m := compiled(t, Match{Text: `(?i)\bpg_sleep\s*\(`})
	asked := 0
	text := func(s string) Facts { return Facts{Text: func() string { asked++; return s }} }
	if !m.MatchesWith(Analysis{}, text("SELECT PG_SLEEP (10)")) {
		t.Fatal("text pattern not found")
	}
	if m.MatchesWith(Analysis{}, text("SELECT 1")) {
		t.Fatal("text pattern found where it is not")
	}
	// The text is not rendered when another condition already fails.
	m2 := compiled(t, Match{Actions: []string{"DROP"}, Text: "x"})
	asked = 0
	m2.MatchesWith(Analysis{Actions: []string{"SELECT"}}, text("x"))
	if asked != 0 {
		t.Fatalf("text rendered %d times for a statement the actions already exclude", asked)
	}
	bad := Match{Text: "a(b"}
	if err := bad.Compile(); err == nil {
		t.Fatal("a pattern that is not RE2 compiled")
	}
	if err := (&Match{Identities: []string{""}}).Compile(); err == nil {
		t.Fatal("an empty identity glob compiled")
	}
}

func TestReportOnly(t *testing.T) {
	policies := []PolicyRule{
		{Name: "try-deny-drop", Match: compiled(t, Match{Effects: []string{EffectDrop}}), ReportOnly: true},
		{Name: "deny-drop-db", Match: compiled(t, Match{Actions: []string{"DROP_DATABASE"}})},
	}
	approvals := []ApprovalRule{
		{Name: "try-hold-deletes", Match: compiled(t, Match{Effects: []string{EffectDelete}}), ReportOnly: true},
		{Name: "hold-unbounded", Match: compiled(t, Match{Effects: []string{EffectUnbounded}})},
	}
	f := Facts{}
	// A report-only match lets the statement run, and is reported.
	ev := EvaluateWith(Analysis{Effects: []string{EffectDelete}}, f, policies, approvals)
	if ev.Verdict != VerdictAllow || len(ev.Reported) != 1 || ev.Reported[0] != (Reported{"try-hold-deletes", WouldHold}) {
		t.Fatalf("bounded DELETE: %+v", ev)
	}
	// Evaluation goes on past it to the enforcing rules.
	ev = EvaluateWith(Analysis{Effects: []string{EffectDelete, EffectUnbounded}}, f, policies, approvals)
	if ev.Verdict != VerdictApproval || ev.Approval.Name != "hold-unbounded" || len(ev.Reported) != 1 {
		t.Fatalf("unbounded DELETE: %+v", ev)
	}
	ev = EvaluateWith(Analysis{Actions: []string{"DROP_DATABASE"}, Effects: []string{EffectDrop}}, f, policies, approvals)
	if ev.Verdict != VerdictPolicy || ev.Policy.Name != "deny-drop-db" || ev.Reported[0] != (Reported{"try-deny-drop", WouldDeny}) {
		t.Fatalf("DROP DATABASE: %+v", ev)
	}
	ev = EvaluateWith(Analysis{Actions: []string{"DROP_TABLE"}, Effects: []string{EffectDrop}}, f, policies, approvals)
	if ev.Verdict != VerdictAllow || len(ev.Reported) != 1 || ev.Reported[0].Decision != WouldDeny {
		t.Fatalf("DROP TABLE: %+v", ev)
	}
	if ev := EvaluateWith(Analysis{Effects: []string{EffectRead}}, f, policies, approvals); ev.Reported != nil {
		t.Fatalf("SELECT reported: %+v", ev)
	}
}

func TestEvaluateWithoutFactsIsABound(t *testing.T) {
	agentsDeny := PolicyRule{Name: "agents-no-drop", Match: compiled(t, Match{Effects: []string{EffectDrop}, Identities: []string{"agent-*"}})}
	holdDeletes := ApprovalRule{Name: "deletes", Match: compiled(t, Match{Effects: []string{EffectDelete}, Identities: []string{"agent-*"}})}
	denyAll := PolicyRule{Name: "no-truncate", Match: compiled(t, Match{Effects: []string{EffectTruncate}})}
	policies, approvals := []PolicyRule{agentsDeny, denyAll}, []ApprovalRule{holdDeletes}

	for _, c := range []struct {
		name      string
		a         Analysis
		want      Verdict
		tentative bool
	}{
		{"no rule can match", Analysis{Effects: []string{EffectRead}}, VerdictAllow, true},
		{"an approval rule may hold: read the payload", Analysis{Effects: []string{EffectDelete}}, VerdictApproval, true},
		{"a policy may deny", Analysis{Effects: []string{EffectDrop}}, VerdictPolicy, true},
		{"a policy certainly denies", Analysis{Effects: []string{EffectTruncate, EffectDelete}}, VerdictPolicy, true},
	} {
		ev := Evaluate(c.a, policies, approvals)
		if ev.Verdict != c.want || ev.Tentative != c.tentative {
			t.Errorf("%s: %+v, want verdict %v tentative %v", c.name, ev, c.want, c.tentative)
		}
	}
	// With the facts the verdict is exact.
	if ev := EvaluateWith(Analysis{Effects: []string{EffectDelete}}, Facts{Identities: []string{"alice"}}, policies, approvals); ev.Verdict != VerdictAllow || ev.Tentative {
		t.Fatalf("alice's DELETE: %+v", ev)
	}
	if ev := EvaluateWith(Analysis{Effects: []string{EffectDelete}}, Facts{Identities: []string{"agent-1"}}, policies, approvals); ev.Verdict != VerdictApproval {
		t.Fatalf("agent-1's DELETE: %+v", ev)
	}
	// Rules without facts: Evaluate is exact.
	if ev := Evaluate(Analysis{Effects: []string{EffectTruncate}}, []PolicyRule{denyAll}, nil); ev.Tentative || ev.Verdict != VerdictPolicy {
		t.Fatalf("no facts needed: %+v", ev)
	}
}

func TestPartsStrictestWins(t *testing.T) {
	// Deciding a unit's verdict needs every part when it depends on facts:
	// for alice the UPDATE is held, for an agent the DELETE is denied.
	policies := []PolicyRule{{Name: "agents-no-delete", Match: compiled(t, Match{Effects: []string{EffectDelete}, Identities: []string{"agent-*"}})}}
	approvals := []ApprovalRule{
		{Name: "watch", Match: compiled(t, Match{Effects: []string{EffectUpdate}}), ReportOnly: true},
		{Name: "updates", Match: compiled(t, Match{Effects: []string{EffectUpdate}})},
	}
	unit := Analysis{Parts: []Analysis{{Effects: []string{EffectDelete}}, {Effects: []string{EffectUpdate}}}}
	if ev := EvaluateWith(unit, Facts{Identities: []string{"alice"}}, policies, approvals); ev.Verdict != VerdictApproval || ev.Approval.Name != "updates" || len(ev.Reported) != 1 {
		t.Fatalf("alice: %+v", ev)
	}
	if ev := EvaluateWith(unit, Facts{Identities: []string{"agent-1"}}, policies, approvals); ev.Verdict != VerdictPolicy || ev.Policy.Name != "agents-no-delete" {
		t.Fatalf("agent-1: %+v", ev)
	}
}

package domain_test

import (
	"testing"

	"github.com/hoophq/sidecar/domain"
)

func compiled(t *testing.T, m domain.Match) domain.Match {
	t.Helper()
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMatchActionsCaseInsensitive(t *testing.T) {
	m := compiled(t, domain.Match{Actions: []string{"drop", "Truncate"}})
	for _, a := range []string{"DROP", "drop", "TRUNCATE", "truncate"} {
		if !m.Matches(domain.Analysis{Actions: []string{"SELECT", a}}) {
			t.Errorf("actions %s not matched", a)
		}
	}
	if m.Matches(domain.Analysis{Actions: []string{"DELETE", "DROPX"}}) {
		t.Error("DELETE/DROPX matched drop,Truncate")
	}
}

func TestMatchTargetGlobs(t *testing.T) {
	cases := []struct {
		glob, target string
		want         bool
	}{
		{"public.*", "public.users", true},
		{"public.*", "public.", true},
		{"public.*", "publicXusers", false}, // the dot is literal
		{"public.*", "other.users", false},
		{"public.*", "Public.users", false}, // targets compare case-sensitively
		{"/v1/*", "/v1/invoices", true},
		{"/v1/*", "/v1/invoices/42", false}, // * stays within one segment
		{"/v1/**", "/v1/invoices/42", true}, // ** crosses segments
		{"/v1/**", "/v1/", true},
		{"/v1/**/refund", "/v1/invoices/42/refund", true},
		{"/v1/*/refund", "/v1/invoices/42/refund", false},
		{"/v1/invoices/?", "/v1/invoices/4", true},
		{"/v1/invoices/?", "/v1/invoices/42", false},
		{"/v1/invoices/?", "/v1/invoices//", false}, // ? is not a slash
		{"**", "anything/at/all", true},
		{"a+b(c)", "a+b(c)", true}, // regexp characters are literal
		{"a+b(c)", "aab(c)", false},
	}
	for _, tc := range cases {
		m := compiled(t, domain.Match{Targets: []string{tc.glob}})
		if got := m.Matches(domain.Analysis{Targets: []string{tc.target}}); got != tc.want {
			t.Errorf("target glob %q vs %q = %v, want %v", tc.glob, tc.target, got, tc.want)
		}
	}
}

func TestMatchFunctions(t *testing.T) {
	m := compiled(t, domain.Match{Functions: []string{"pg_terminate_*", "lo_import"}})
	for fn, want := range map[string]bool{
		"pg_terminate_backend": true, "PG_TERMINATE_BACKEND": true, "LO_IMPORT": true,
		"pg_cancel_backend": false, "lo_import2": false,
	} {
		if got := m.Matches(domain.Analysis{Functions: []string{fn}}); got != want {
			t.Errorf("function %s = %v, want %v", fn, got, want)
		}
	}
}

func TestMatchListsAreANDed(t *testing.T) {
	m := compiled(t, domain.Match{Actions: []string{"DELETE"}, Targets: []string{"public.*"}})
	cases := []struct {
		a    domain.Analysis
		want bool
	}{
		{domain.Analysis{Actions: []string{"DELETE"}, Targets: []string{"public.invoices"}}, true},
		{domain.Analysis{Actions: []string{"DELETE"}, Targets: []string{"audit.log"}}, false},
		{domain.Analysis{Actions: []string{"UPDATE"}, Targets: []string{"public.invoices"}}, false},
		{domain.Analysis{Actions: []string{"DELETE"}}, false},
	}
	for _, tc := range cases {
		if got := m.Matches(tc.a); got != tc.want {
			t.Errorf("%+v = %v, want %v", tc.a, got, tc.want)
		}
	}
	empty := compiled(t, domain.Match{})
	if !empty.Matches(domain.Analysis{}) || !empty.Matches(domain.Analysis{Actions: []string{"SELECT"}}) {
		t.Error("an empty Match must match every statement")
	}
}

func TestCompileRefusesEmptyGlob(t *testing.T) {
	for _, m := range []domain.Match{{Targets: []string{""}}, {Functions: []string{"ok", ""}}} {
		if err := m.Compile(); err == nil {
			t.Errorf("Compile accepted %+v", m)
		}
	}
}

func TestEvaluateOrder(t *testing.T) {
	policies := []domain.PolicyRule{{Name: "no-drop-db", Match: compiled(t, domain.Match{Actions: []string{"DROP_DATABASE"}})}}
	approvals := []domain.ApprovalRule{
		{Name: "db-destructive", Match: compiled(t, domain.Match{Actions: []string{"DROP", "DROP_DATABASE", "DELETE"}})},
		{Name: "catch-delete", Match: compiled(t, domain.Match{Actions: []string{"DELETE"}})},
	}
	ev := domain.Evaluate(domain.Analysis{Actions: []string{"DROP_DATABASE"}}, policies, approvals)
	if ev.Verdict != domain.VerdictPolicy || ev.Policy.Name != "no-drop-db" || ev.Approval != nil {
		t.Errorf("policy must win over approval: %+v", ev)
	}
	ev = domain.Evaluate(domain.Analysis{Actions: []string{"DELETE"}}, policies, approvals)
	if ev.Verdict != domain.VerdictApproval || ev.Approval.Name != "db-destructive" {
		t.Errorf("the first matching approval rule must hold it: %+v", ev)
	}
	ev = domain.Evaluate(domain.Analysis{Actions: []string{"SELECT"}}, policies, approvals)
	if ev.Verdict != domain.VerdictAllow || ev.Policy != nil || ev.Approval != nil {
		t.Errorf("SELECT: %+v, want allow", ev)
	}
}

func TestWantsReturnMode(t *testing.T) {
	for name, want := range map[string]bool{
		"hoop-approval=return":           true,
		"claude hoop-approval=return":    true,
		"claude\thoop-approval=return x": true,
		"HOOP-APPROVAL=RETURN":           true,
		"":                               false,
		"claude":                         false,
		"hoop-approval=returned":         false,
		"xhoop-approval=return":          false,
		"hoop-approval=wait":             false,
		"claude,hoop-approval=return":    false, // a word on its own, separated by whitespace
	} {
		if got := domain.WantsReturnMode(name); got != want {
			t.Errorf("WantsReturnMode(%q) = %v, want %v", name, got, want)
		}
	}
}

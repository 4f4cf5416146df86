package app

import (
	"testing"

	"github.com/hoophq/sidecar/domain"
)

func TestDecidingEvaluatesEachPartAlone(t *testing.T) {
	ar := domain.ApprovalRule{Name: "a", Match: domain.Match{Actions: []string{"DELETE"}, Targets: []string{"public.*"}}}
	pr := domain.PolicyRule{Name: "p", Match: domain.Match{Actions: []string{"DROP_DATABASE"}}}
	if err := ar.Match.Compile(); err != nil {
		t.Fatal(err)
	}
	s := &ListenerSettings{Approvals: []domain.ApprovalRule{ar}, Policies: []domain.PolicyRule{pr}}
	del := domain.Analysis{Actions: []string{"DELETE"}, Targets: []string{"x.a"}}
	sel := domain.Analysis{Actions: []string{"SELECT"}, Targets: []string{"public.b"}}
	if got := Covered(s, []domain.Analysis{del, sel}); len(got) != 0 {
		t.Fatalf("DELETE x.a + SELECT public.b: covered %v, want none", got)
	}
	if v := domain.Evaluate(Deciding(s, []domain.Analysis{del, sel}), s.Policies, s.Approvals).Verdict; v != domain.VerdictAllow {
		t.Fatalf("verdict %v, want allow", v)
	}
	held := domain.Analysis{Actions: []string{"DELETE"}, Targets: []string{"public.b"}}
	drop := domain.Analysis{Actions: []string{"DROP", "DROP_DATABASE"}}
	if got := Covered(s, []domain.Analysis{sel, held, drop}); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("covered %v, want [1 2]", got)
	}
	if v := domain.Evaluate(Deciding(s, []domain.Analysis{sel, held, drop}), s.Policies, s.Approvals).Verdict; v != domain.VerdictPolicy {
		t.Fatalf("verdict %v, want policy (strictest part)", v)
	}
	if v := domain.Evaluate(Deciding(s, []domain.Analysis{sel, held}), s.Policies, s.Approvals).Verdict; v != domain.VerdictApproval {
		t.Fatalf("verdict %v, want approval", v)
	}
}

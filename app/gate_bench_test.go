package app_test

import (
	"context"
	"testing"

	"github.com/hoophq/sidecar/adapters/outbound/metrics"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// discardAudit is an audit sink that keeps nothing (the Sidecar's without an
// audit block).
type discardAudit struct{}

func (discardAudit) Record(ports.AuditEvent) {}

// BenchmarkGateCheck decides statements on a postgres-like listener with
// metrics on and the fake Control Plane: an allowed SELECT (the hot path), a
// policy denial, and a DELETE whose PENDING approval is reused (an agent
// that resends in return mode before a person decided).
//
//	go test -run '^$' -bench GateCheck -benchmem ./app/
func BenchmarkGateCheck(b *testing.B) {
	cp := fakecp.New(nil)
	core := app.NewCore(app.CoreOptions{Sidecar: "bench", CP: cp, Audit: discardAudit{}, Metrics: metrics.New()})
	approval := domain.ApprovalRule{Name: "db-destructive", Match: domain.Match{Actions: []string{"DELETE", "DROP", "TRUNCATE"},
		Targets: []string{"public.*"}}}
	policy := domain.PolicyRule{Name: "no-drop-db", Match: domain.Match{Actions: []string{"DROP_DATABASE"}}, Message: "never"}
	for _, m := range []*domain.Match{&approval.Match, &policy.Match} {
		if err := m.Compile(); err != nil {
			b.Fatal(err)
		}
	}
	l := core.Listener(app.ListenerSettings{Name: "pg", Protocol: "postgres", Mode: app.ModeReturn, SpendOn: ports.SpendOnSent,
		Approvals: []domain.ApprovalRule{approval}, Policies: []domain.PolicyRule{policy}})
	st := func(action, target, text string) app.Statement {
		return app.Statement{Identity: "agent", Canonical: []byte(text + "\x00" + "42"), Display: text,
			Analysis: domain.Analysis{Actions: []string{action}, Targets: []string{target}}, Client: "127.0.0.1:50000"}
	}
	cases := []struct {
		name    string
		st      app.Statement
		forward bool
	}{
		{"allow_select", st("SELECT", "public.invoices", "SELECT * FROM invoices WHERE id = $1"), true},
		{"deny_policy", st("DROP_DATABASE", "", "DROP DATABASE billing"), false},
		{"pending_reused", st("DELETE", "public.invoices", "DELETE FROM invoices WHERE id = $1"), false},
	}
	ctx := context.Background()
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if out := l.Check(ctx, c.st); out.Forward != c.forward {
					b.Fatalf("outcome %+v", out)
				}
			}
		})
	}
}

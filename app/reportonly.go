package app

import (
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// reportOnly records each report-only rule that matched a statement
// (domain.Evaluation.Reported) as its own audit line, decision would_deny or
// would_hold with the rule's name and the statement, counted by the
// metrics like any decision (ports.Metrics.Statement). The statement is
// then decided as if those rules were absent; nothing is filed with the
// Control Plane for them. base is the statement's audit event so far.
func (g *Gate) reportOnly(base ports.AuditEvent, reported []domain.Reported, st *Statement) {
	if len(reported) == 0 {
		return
	}
	st.memoText() // the decision's own line shows the same text
	base.Statement = truncate(st.text(), 2048)
	for _, r := range reported {
		e := base
		e.Decision, e.Rule = r.Decision, r.Rule
		g.record(e)
	}
}

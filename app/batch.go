package app

import "github.com/hoophq/sidecar/domain"

// Several statements in one message (a PostgreSQL simple Query with several
// statements, a MySQL multi-statement, a SQL Server batch) or in one
// pipeline up to a sync point are decided as one unit: if any of them is
// held, none runs. These helpers let an adapter evaluate each statement on
// its own, so that one statement's action never pairs with another
// statement's target.

// Covered returns the indexes of parts that a policy or approval rule of s
// covers, each part evaluated on its own. When the rules have identities or
// text it includes every part that one may cover (the gate decides them
// with the facts).
func Covered(s *ListenerSettings, parts []domain.Analysis) []int {
	var out []int
	for i, p := range parts {
		if domain.Evaluate(p, s.Policies, s.Approvals).Verdict != domain.VerdictAllow {
			out = append(out, i)
		}
	}
	return out
}

// Deciding returns the analysis the gate sees for a unit of parts: the first
// part a policy rule covers, else the first part an approval rule covers,
// else the first part (an empty analysis when there is none). The gate then
// reaches the verdict of the strictest part. When there are several parts
// and the rules have identities or text (which only the gate knows) or
// report-only rules (whose matches on any part are recorded), that part
// carries every part in Parts, so the gate decides them all
// (domain.EveryPartCounts).
func Deciding(s *ListenerSettings, parts []domain.Analysis) domain.Analysis {
	if len(parts) > 1 && domain.EveryPartCounts(s.Policies, s.Approvals) {
		d := parts[0]
		d.Parts = parts
		return d
	}
	approval := -1
	for i, p := range parts {
		switch domain.Evaluate(p, s.Policies, s.Approvals).Verdict {
		case domain.VerdictPolicy:
			return p
		case domain.VerdictApproval:
			if approval < 0 {
				approval = i
			}
		}
	}
	switch {
	case approval >= 0:
		return parts[approval]
	case len(parts) > 0:
		return parts[0]
	}
	return domain.Analysis{}
}

// WithMCP reports whether the Sidecar serves the MCP tools, so an adapter
// can name approval_wait in a denial's hint.
func (l *Listener) WithMCP() bool { return l.gate != nil && l.gate.WithMCP }

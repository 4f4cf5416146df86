package postgres

import (
	"slices"

	"github.com/hoophq/sidecar/adapters/inbound/postgres/analyzer"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// maxCursors is how many cursor names a session remembers apart; past it,
// the reads of the newer ones are merged into one analysis that every
// FETCH of a name not remembered gets.
const maxCursors = 256

// cursors is what the cursors a session declared read, for the masking
// rules' match: DECLARE c CURSOR FOR SELECT … FROM customers names the
// table and returns no row; FETCH … FROM c returns the rows and names no
// table, so a rule with targets would not apply to them. A FETCH is
// masked as if it were also its cursor's query. A name declared again
// keeps both queries (a DECLARE the upstream refused leaves the old
// cursor open): at worst a FETCH is masked by one rule too many. A cursor
// the session never saw declared (a refcursor a function returns) reads
// nothing here.
type cursors struct {
	reads    map[string]domain.Analysis
	overflow *domain.Analysis
}

// declared records what the DECLAREs of res read. Call it once the text
// is forwarded.
func (c *cursors) declared(res analyzer.Result) {
	for _, st := range res.Statements {
		if st.Declare == "" {
			continue
		}
		if c.reads == nil {
			c.reads = map[string]domain.Analysis{}
		}
		old, ok := c.reads[st.Declare]
		switch {
		case ok:
			c.reads[st.Declare] = domain.Merge(old, st.Analysis)
		case len(c.reads) < maxCursors:
			c.reads[st.Declare] = domain.Merge(domain.Analysis{}, st.Analysis)
		case c.overflow == nil:
			a := domain.Merge(domain.Analysis{}, st.Analysis)
			c.overflow = &a
		default:
			*c.overflow = domain.Merge(*c.overflow, st.Analysis)
		}
	}
}

// forMasking returns st with the queries of the cursors res FETCHes from
// added to its analysis as parts, for MaskPlan: st itself when res
// fetches from none.
func (c *cursors) forMasking(st app.Statement, res analyzer.Result) app.Statement {
	var add []domain.Analysis
	for _, x := range res.Statements {
		if x.Fetch == "" {
			continue
		}
		if a, ok := c.reads[x.Fetch]; ok {
			add = append(add, a)
		} else if c.overflow != nil {
			add = append(add, *c.overflow)
		}
	}
	if len(add) == 0 {
		return st
	}
	st.Analysis.Parts = append(slices.Clip(st.Analysis.Parts), add...)
	return st
}

package analyzer

import (
	"slices"

	"github.com/hoophq/sidecar/domain"
)

// Atomic reports whether res is one statement that SQL Server runs whole
// or not at all, so that an error in its answer means nothing of it ran:
// one statement with no block, condition or loop (BEGIN, IF, WHILE, GOTO),
// no procedure call and no text run as SQL (EXEC, sp_executesql,
// OPENQUERY…: dynamicWord). A block is one Statement to the analyzer, and
// SQL Server does not report each statement it ran (SET NOCOUNT ON drops
// the DONEINPROC of the statements of a procedure or sp_executesql).
func Atomic(res Result) bool {
	if res.Err != nil || len(res.Statements) != 1 {
		return false
	}
	st := res.Statements[0]
	if slices.Contains(st.Analysis.Actions, "EXEC") || slices.Contains(st.Analysis.Actions, domain.ActionUnknown) {
		return false
	}
	l := lex(st.Text)
	if l.unterminated {
		return false
	}
	for _, t := range l.toks {
		if t.kind != tokWord {
			continue
		}
		w := st.Text[t.start:t.end]
		if dynamicWord(w) || eqFold(w, "BEGIN") || eqFold(w, "IF") || eqFold(w, "WHILE") || eqFold(w, "GOTO") {
			return false
		}
	}
	return true
}

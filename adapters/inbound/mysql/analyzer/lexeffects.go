package analyzer

import (
	"slices"
	"sort"
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// addTokenEffects adds to st (the statement p of a text whose tokens are
// toks, read in mode m) the effects its parse tree does not show but its
// tokens do:
//
//   - ALTER [ONLINE] IGNORE TABLE: DELETE beside SCHEMA_CHANGE, since
//     IGNORE drops the rows that break a new unique key (the parser reads
//     the word and forgets it);
//   - a call the server reads as a stored function's although the parser
//     reads the built-in (builtins.go, shadowable): RUNS_CODE.
func addTokenEffects(st *Statement, sql string, toks []token, p parsed, m Mode) {
	var more []string
	lo := sort.Search(len(toks), func(i int) bool { return toks[i].start >= p.start })
	hi := sort.Search(len(toks), func(i int) bool { return toks[i].end > p.end })
	hi = max(hi, lo)
	in := toks[lo:hi] // the statement's tokens, not copied
	if wordAt(sql, in, 0, "ALTER") && (wordAt(sql, in, 1, "IGNORE") || wordAt(sql, in, 1, "ONLINE") && wordAt(sql, in, 2, "IGNORE")) {
		more = append(more, domain.EffectDelete)
	}
	for k := 0; k+1 < len(in); k++ {
		t, next := in[k], in[k+1]
		if next.kind != tokOp || sql[next.start] != '(' || (t.kind != tokWord && t.kind != tokQuoted) {
			continue
		}
		if name, ok := storedCall(sql, t, next.start > t.end, m); ok && slices.Contains(st.Analysis.Functions, name) {
			more = append(more, domain.EffectRunsCode)
			break
		}
	}
	if len(more) > 0 {
		st.Analysis.Effects = ordered(domain.AddEffects(st.Analysis.Effects, more...))
	}
}

// storedCall returns the name (lower case) of a call whose name token is t
// and reports whether MariaDB reads it as a stored function's although it
// is a built-in's name: a name the grammar reads only when "(" follows at
// once (gap: space or a comment between), unless IGNORE_SPACE; any name
// the grammar reads, quoted (`now`()).
func storedCall(sql string, t token, gap bool, m Mode) (string, bool) {
	switch {
	case t.kind == tokWord && gap && !m.IgnoreSpace:
		name := strings.ToLower(sql[t.start:t.end])
		return name, gapShadowed[name]
	case t.kind == tokQuoted && t.end-t.start > 2:
		name := strings.ToLower(sql[t.start+1 : t.end-1])
		return name, !strings.ContainsAny(name, "`\"") && quotedShadowed[name]
	}
	return "", false
}

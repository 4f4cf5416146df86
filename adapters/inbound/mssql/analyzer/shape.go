package analyzer

import "strings"

// shapeKey returns a key under which text shares its analysis with every
// text that differs from it only in constants (plain numbers and strings)
// and comments, so that a cache can answer "SELECT … WHERE id = 1" and
// "… = 2" with one parse. It uses the analyzer's lexer (lexical.go).
//
// ok is false unless text starts with SELECT, INSERT, UPDATE, DELETE, MERGE
// or WITH and names no word whose literal arguments are SQL or change the
// analysis (EXEC, EXECUTE, sp_executesql, sp_prepare, sp_prepexec,
// OPENQUERY, OPENROWSET, OPENDATASOURCE): elsewhere no constant changes the
// analysis (statement kinds, object and function names are never plain
// numbers or strings). A number run into a word or a dot (1e5x, 2abc, 1.2.3)
// is kept as written.
func shapeKey(text string) (key string, ok bool) {
	if strings.ContainsAny(text, "\x00\x01") || oddLineEnd(text) {
		return "", false
	}
	l := lex(text)
	if l.unterminated || len(l.toks) == 0 {
		return "", false
	}
	first := text[l.toks[0].start:l.toks[0].end]
	switch {
	case eqFold(first, "SELECT"), eqFold(first, "INSERT"), eqFold(first, "UPDATE"), eqFold(first, "DELETE"),
		eqFold(first, "MERGE"), eqFold(first, "WITH"):
	default:
		return "", false
	}
	var b strings.Builder
	b.Grow(len(text) + 16)
	b.WriteString("\x00shape-v1")
	for _, t := range l.toks {
		b.WriteByte(0)
		w := text[t.start:t.end]
		switch t.kind {
		case tokString:
			b.WriteString("\x01s")
			continue
		case tokNumber:
			b.WriteString("\x01n")
			continue
		case tokWord, tokQuoted:
			if dynamicWord(unquoteName(w)) {
				return "", false
			}
		}
		b.WriteString(w)
	}
	return b.String(), true
}

func dynamicWord(w string) bool {
	if len(w) < 4 || len(w) > 14 {
		return false
	}
	for _, k := range [...]string{"EXEC", "EXECUTE", "SP_EXECUTESQL", "SP_PREPARE", "SP_PREPEXEC", "OPENQUERY", "OPENROWSET", "OPENDATASOURCE"} {
		if eqFold(w, k) {
			return true
		}
	}
	return false
}

package analyzer

import "strings"

// shapeKey returns a key under which sql shares its analysis with every text
// that differs from it only in constants (plain numbers and strings) and
// comments, so that a cache can answer "SELECT … WHERE id = 1" and "… = 2"
// with one parse. It uses the analyzer's lexer (lexical.go), which reads the
// text as the server does.
//
// ok is false unless sql is one statement that starts with SELECT, INSERT,
// UPDATE, DELETE, REPLACE, WITH, VALUES or TABLE, holds no backslash in a
// quoted token (those are read in several sql_modes, modes.go) and no
// PREPARE-like text: in those no constant changes the analysis (statement
// kinds, table and function names are never plain numbers or strings).
// Nor does it hold a versioned executable comment (skipped.go: a comment
// is no constant there), and a gap before "(" is kept (builtins.go).
// A number right after a dot (db.5) or run into a word (2abc, 1e5x) is kept
// as written.
func shapeKey(sql string, m Mode) (key string, ok bool) {
	if strings.ContainsAny(sql, "\x00\x01") {
		return "", false
	}
	l := lex(sql, m)
	if l.err != nil || l.backslashInQuote || len(l.toks) == 0 || len(l.conds) > 0 {
		return "", false
	}
	first := sql[l.toks[0].start:l.toks[0].end]
	switch {
	case eqFold(first, "SELECT"), eqFold(first, "INSERT"), eqFold(first, "UPDATE"), eqFold(first, "DELETE"),
		eqFold(first, "REPLACE"), eqFold(first, "WITH"), eqFold(first, "VALUES"), eqFold(first, "TABLE"):
	default:
		return "", false
	}
	var b strings.Builder
	b.Grow(len(sql) + 16)
	b.WriteString("\x00shape-v1")
	ended := false
	for k, t := range l.toks {
		if ended && t.kind != tokSemicolon {
			return "", false // a second statement
		}
		b.WriteByte(0)
		if k > 0 && l.toks[k-1].end != t.start && sql[t.start] == '(' {
			b.WriteByte(2) // `mid (1)` is not `mid(1)` (builtins.go)
		}
		switch {
		case t.kind == tokSemicolon:
			ended = true
		case t.kind == tokString:
			b.WriteString("\x01s")
		case t.kind == tokNumber && !(k > 0 && l.toks[k-1].end == t.start && sql[t.start-1] == '.'):
			b.WriteString("\x01n")
		default:
			b.WriteString(sql[t.start:t.end])
		}
	}
	return b.String(), true
}

// trimStatement is a one-statement text as Statement.Text gives it: without
// surrounding spaces and closing semicolons.
func trimStatement(sql string) string {
	return strings.TrimRight(strings.TrimSpace(sql), "; \t\r\n\f\v")
}

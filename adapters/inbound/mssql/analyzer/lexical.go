package analyzer

import (
	"strings"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// tokKind is the class of a lexical token.
type tokKind uint8

const (
	tokWord      tokKind = iota // keyword or identifier: select, users, #tmp
	tokNumber                   // a plain decimal number: 12, 1.5, 1.5e-3
	tokString                   // '…' or N'…'
	tokQuoted                   // […] or "…" (an identifier, or a string under QUOTED_IDENTIFIER OFF)
	tokVar                      // @name, @@name
	tokSemicolon                // ;
	tokOp                       // any other byte: operators, brackets, commas, dots
)

// token is one token's kind and byte range in the text.
type token struct {
	kind       tokKind
	start, end int
}

// lexed is a text split into tokens the way SQL Server reads it.
type lexed struct {
	toks []token
	// unterminated: the text ends inside a string, quoted name or comment.
	unterminated bool
}

// lex reads sql as SQL Server's lexer does:
//   - '…' is a string, N'…' a Unicode string; a quote doubled inside stands
//     for itself (no backslash escapes);
//   - […] quotes a name, "]]" inside standing for "]"; "…" quotes a name
//     (or, under SET QUOTED_IDENTIFIER OFF, a string), '""' standing for '"';
//   - "--" starts a comment to the end of the line (CR or LF, as the
//     parser's lexer ends it); /* … */ is a comment and
//     nests (/* a /* b */ c */ is one comment);
//   - @name is a variable, @@name a system function; #name and ##name are
//     temporary tables (words).
//
// The lexer serves the shape key, the depth bound and the guess for texts
// the parser refuses; the parser's own lexer (ANTLR) decides the analysis.
func lex(sql string) lexed {
	l := lexed{toks: make([]token, 0, min(len(sql)/4+4, 4096))}
	l.unterminated = lexEach(sql, func(t token) { l.toks = append(l.toks, t) })
	return l
}

// lexEach reads sql as lex does, passing each token to emit in order
// instead of keeping them (a large text's tokens would cost more than its
// bytes), and reports whether the text ends inside a string, quoted name
// or comment (no token is emitted after that point).
func lexEach(sql string, emit func(token)) (unterminated bool) {
	n := len(sql)
	i := 0
	for i < n {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r': // the grammar's SPACE; \f and \v are not
			i++
		case c == '-' && i+1 < n && sql[i+1] == '-':
			for i < n && sql[i] != '\n' && sql[i] != '\r' {
				i++
			}
		case c == '/' && i+1 < n && sql[i+1] == '*':
			depth := 0
			for i < n {
				if sql[i] == '/' && i+1 < n && sql[i+1] == '*' {
					depth++
					i += 2
				} else if sql[i] == '*' && i+1 < n && sql[i+1] == '/' {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
			if depth > 0 {
				return true
			}
		case c == '\'' || ((c == 'N' || c == 'n') && i+1 < n && sql[i+1] == '\''):
			q := i
			if c != '\'' {
				q++
			}
			j, ok := quoted(sql, q, '\'')
			if !ok {
				return true
			}
			emit(token{tokString, i, j})
			i = j
		case c == '"':
			j, ok := quoted(sql, i, '"')
			if !ok {
				return true
			}
			emit(token{tokQuoted, i, j})
			i = j
		case c == '[':
			j, ok := quoted(sql, i, ']')
			if !ok {
				return true
			}
			emit(token{tokQuoted, i, j})
			i = j
		case c == '@':
			j := i + 1
			for j < n && (isWordByte(sql[j]) || sql[j] == '@') {
				j++
			}
			emit(token{tokVar, i, j})
			i = j
		case c >= '0' && c <= '9' || (c == '.' && i+1 < n && sql[i+1] >= '0' && sql[i+1] <= '9'):
			j, plain := number(sql, i)
			kind := tokNumber
			if !plain {
				kind = tokWord
			}
			emit(token{kind, i, j})
			i = j
		case isWordByte(c):
			j := i + 1
			for j < n && isWordByte(sql[j]) {
				j++
			}
			emit(token{tokWord, i, j})
			i = j
		case c == ';':
			emit(token{tokSemicolon, i, i + 1})
			i++
		default:
			emit(token{tokOp, i, i + 1})
			i++
		}
	}
	return false
}

// quoted returns the end of the quoted token opening at sql[i] and closing
// with end (doubled inside: itself), and whether it is closed.
func quoted(sql string, i int, end byte) (int, bool) {
	for j := i + 1; j < len(sql); j++ {
		if sql[j] != end {
			continue
		}
		if j+1 < len(sql) && sql[j+1] == end {
			j++
			continue
		}
		return j + 1, true
	}
	return len(sql), false
}

// number returns the end of the number at sql[i] and whether it is a plain
// decimal (digits, one dot, an exponent) that no letter, digit or dot
// follows: 0x1F, 1e5x, 1.2.3 and 2abc are not plain.
func number(sql string, i int) (int, bool) {
	j := i
	for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
		j++
	}
	if j < len(sql) && sql[j] == '.' {
		j++
		for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
			j++
		}
	}
	if j < len(sql) && (sql[j] == 'e' || sql[j] == 'E') {
		k := j + 1
		if k < len(sql) && (sql[k] == '+' || sql[k] == '-') {
			k++
		}
		if k < len(sql) && sql[k] >= '0' && sql[k] <= '9' {
			for k < len(sql) && sql[k] >= '0' && sql[k] <= '9' {
				k++
			}
			j = k
		}
	}
	if j < len(sql) && (isWordByte(sql[j]) || sql[j] == '.' || sql[j] == '@') {
		for j < len(sql) && (isWordByte(sql[j]) || sql[j] == '.') {
			j++
		}
		return j, false
	}
	return j, true
}

// isWordByte reports bytes of names: letters, digits, _, #, $ and every
// byte of a multi-byte UTF-8 character.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '#' || c == '$' || c >= 0x80
}

// unquoteString returns the value of a '…' or N'…' literal.
func unquoteString(s string) string {
	if len(s) > 0 && (s[0] == 'N' || s[0] == 'n') {
		s = s[1:]
	}
	if len(s) < 2 {
		return ""
	}
	return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
}

// sqlText returns the value of a '…' or N'…' literal that runs as SQL,
// and false when the server may run another text: a '…' literal is
// converted to the database's code page first, where a character outside
// ASCII may become another (a best-fit mapping turns U+02BC or U+FF07 into
// a quote), so only an ASCII one reads as written.
func sqlText(s string) (string, bool) {
	if len(s) > 0 && s[0] != 'N' && s[0] != 'n' && !isASCII(s) {
		return "", false
	}
	return unquoteString(s), true
}

// unquoteName returns a name as SQL Server reads it: [a b] → a b, "a" → a,
// anything else as written. Trailing spaces are dropped: SQL Server
// compares names as it compares sysname values, with trailing spaces
// ignored, so [users ] is the table users.
func unquoteName(s string) string {
	switch {
	case len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']':
		return strings.TrimRight(strings.ReplaceAll(s[1:len(s)-1], "]]", "]"), " ")
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"':
		return strings.TrimRight(strings.ReplaceAll(s[1:len(s)-1], `""`, `"`), " ")
	}
	return s
}

// eqFold reports whether a, in any ASCII case, is the upper-case b.
func eqFold(a, b string) bool { return analyzerkit.UpperEq(a, b) }

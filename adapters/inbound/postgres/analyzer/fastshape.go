package analyzer

import "strings"

// fastShape is shapeKey without a call into PostgreSQL's scanner, for the
// plain texts most clients send (pgbench's "SELECT abalance FROM
// pgbench_accounts WHERE aid = 12345;"): a scan of the text in Go that
// replaces each numeric and '…' string constant with a marker and keeps
// every other byte as it is. A text of the same key thus differs from sql
// only inside constants, which is what shapeKey promises.
//
// It only answers when it is sure to split the text as PostgreSQL's scanner
// does, and otherwise returns ok false (the caller then asks shapeKey):
// any byte outside printable ASCII and plain whitespace, a backslash,
// comments, "..", dollar quotes, prefixed strings (E'…', B'…', X'…', N'…', U&'…'), two
// string constants in a row (which PostgreSQL may join), a number followed
// directly by a letter, digit, '.' or '$' (a malformed or special literal),
// UESCAPE, a second statement, or a first token other than SELECT, INSERT,
// UPDATE, DELETE, WITH, VALUES or TABLE. FuzzFastShape checks its
// constants against PostgreSQL's scanner.
func fastShape(sql string) (key string, ok bool) {
	key, _, ok = fastShapeSpans(sql)
	return key, ok
}

// fastShapeSpans is fastShape that also returns the constants' byte ranges
// [start, end) in sql.
func fastShapeSpans(sql string) (key string, consts [][2]int, ok bool) {
	var b strings.Builder
	b.Grow(len(sql) + 16)
	b.WriteString("\x00shape-go-v1\x00")
	first, ended, lastString := true, false, false
	opRun := 0 // operator characters in a row: PostgreSQL refuses more than 63
	n := len(sql)
	for i := 0; i < n; {
		c := sql[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' {
			b.WriteByte(c)
			i++
			continue
		}
		if c >= 0x80 || c < 0x20 || c == 0x7f || c == '\\' || ended {
			return "", nil, false
		}
		isString := false
		switch {
		case identStart(c):
			j := i + 1
			for j < n && identCont(sql[j]) {
				j++
			}
			word := sql[i:j]
			if j < n && (sql[j] == '\'' || sql[j] == '"') {
				return "", nil, false // E'…', B'…', X'…', N'…' and the like
			}
			if first {
				if !shapedFirst(word) {
					return "", nil, false
				}
				first = false
			}
			if strings.EqualFold(word, "uescape") {
				return "", nil, false
			}
			b.WriteString(word)
			i = j
		case digit(c) || (c == '.' && i+1 < n && digit(sql[i+1])):
			j, good := scanNumber(sql, i)
			if !good || first || (j < n && (identCont(sql[j]) || sql[j] == '.')) {
				return "", nil, false
			}
			consts = append(consts, [2]int{i, j})
			b.WriteString("\x01n")
			i = j
		case c == '\'':
			if first || lastString {
				return "", nil, false
			}
			j := i + 1
			for {
				k := strings.IndexByte(sql[j:], '\'')
				if k < 0 {
					return "", nil, false // unterminated
				}
				j += k + 1
				if j < n && sql[j] == '\'' { // '' inside the string
					j++
					continue
				}
				break
			}
			if !plain(sql[i+1 : j-1]) {
				return "", nil, false
			}
			consts = append(consts, [2]int{i, j})
			b.WriteString("\x01s")
			i, isString = j, true
		case c == '"':
			if first {
				return "", nil, false
			}
			j := i + 1
			for {
				k := strings.IndexByte(sql[j:], '"')
				if k < 0 {
					return "", nil, false
				}
				j += k + 1
				if j < n && sql[j] == '"' {
					j++
					continue
				}
				break
			}
			if j == i+2 || !plain(sql[i+1:j-1]) {
				return "", nil, false // "" is not an identifier
			}
			b.WriteString(sql[i:j])
			i = j
		case c == '$': // a parameter ($1); anything else is a dollar quote
			j := i + 1
			for j < n && digit(sql[j]) {
				j++
			}
			if first || j == i+1 || (j < n && identCont(sql[j])) {
				return "", nil, false
			}
			b.WriteString(sql[i:j])
			i = j
		default: // operators and punctuation, kept as they are
			if first {
				return "", nil, false
			}
			if i+1 < n {
				next := sql[i+1]
				if (c == '-' && next == '-') || (c == '/' && next == '*') || (c == '&' && (next == '\'' || next == '"')) || (c == '.' && next == '.') {
					return "", nil, false // comments, U&'…', the .. token
				}
			}
			if c == ';' {
				ended = true
			}
			if strings.IndexByte("~!@#^&|`?+-*/%<>=", c) >= 0 {
				if opRun++; opRun > 63 {
					return "", nil, false
				}
			} else {
				opRun = 0
			}
			b.WriteByte(c)
			i++
			lastString = false
			continue
		}
		opRun = 0
		lastString = isString
	}
	if first {
		return "", nil, false
	}
	return b.String(), consts, true
}

// scanNumber reads a numeric constant at sql[i:] as PostgreSQL's scanner
// does (decimal digits, a fraction, an exponent) and returns its end; good
// is false for forms it leaves to the scanner (an exponent without digits).
func scanNumber(sql string, i int) (end int, good bool) {
	n := len(sql)
	j := i
	for j < n && digit(sql[j]) {
		j++
	}
	if j < n && sql[j] == '.' {
		j++
		for j < n && digit(sql[j]) {
			j++
		}
	}
	if j < n && (sql[j] == 'e' || sql[j] == 'E') {
		j++
		if j < n && (sql[j] == '+' || sql[j] == '-') {
			j++
		}
		if j >= n || !digit(sql[j]) {
			return j, false
		}
		for j < n && digit(sql[j]) {
			j++
		}
	}
	return j, true
}

// shapedFirst reports whether a text starting with word may be shaped.
func shapedFirst(word string) bool {
	for _, k := range [...]string{"SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "VALUES", "TABLE"} {
		if strings.EqualFold(word, k) {
			return true
		}
	}
	return false
}

// plain reports whether s holds only printable ASCII and whitespace, no
// backslash (whose meaning depends on session settings).
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c == '\\' || (c < 0x20 && c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f {
			return false
		}
	}
	return true
}

func digit(c byte) bool      { return c >= '0' && c <= '9' }
func identStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func identCont(c byte) bool  { return identStart(c) || digit(c) || c == '$' }

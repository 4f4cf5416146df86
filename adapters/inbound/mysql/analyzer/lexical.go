package analyzer

import (
	"errors"
	"fmt"
	"strings"
)

// tokKind is the class of a lexical token.
type tokKind uint8

const (
	tokWord      tokKind = iota // keyword, identifier, or a word such as 0x1F, 1e5, 2abc
	tokNumber                   // a plain decimal number: 12, 1.5, 1.5e-3
	tokString                   // '…', or "…" without ANSI_QUOTES
	tokQuoted                   // `…`, or "…" with ANSI_QUOTES
	tokVar                      // @name, @@name, @'…'
	tokSemicolon                // ;
	tokOp                       // any other byte: operators, brackets, commas, dots, ?
)

// condComment is one executable comment a server may skip: the byte range
// of what is inside it, and its marker (!50700, M!, M!100500), which
// servers run or skip together.
type condComment struct {
	start, end int
	marker     string
}

// token is one token's kind and byte range in the text.
type token struct {
	kind       tokKind
	start, end int
}

// lexed is a text read the way the MySQL and MariaDB servers read it.
type lexed struct {
	toks []token
	// code is the text with every comment and the markers of executable
	// comments (/*!, /*!50700, /*M!100500, the closing */) replaced by spaces:
	// the SQL the server runs, byte for byte at the same offsets.
	code string
	// backslashInQuote: a string or "…" holds a backslash, so the text may
	// read differently under NO_BACKSLASH_ESCAPES or ANSI_QUOTES.
	backslashInQuote bool
	// conds are the executable comments a server may skip (those with a
	// version, and MariaDB's /*M!, which MySQL skips): what is inside is
	// read, but a server older than the version reads none of it.
	conds []condComment
	// errAt is where the text stops being readable (an unterminated string,
	// quoted identifier or comment, a nested executable comment); -1 when
	// it is readable to its end. toks holds the tokens before it.
	errAt int
	err   error
}

var errUnterminated = errors.New("unterminated")

// lex reads sql in mode m. MySQL's and MariaDB's lexers decide:
//   - '…' and "…" are strings (with ANSI_QUOTES "…" is an identifier);
//     a quote doubled inside stands for itself; a backslash escapes the
//     next byte unless NO_BACKSLASH_ESCAPES; `…` quotes an identifier.
//   - # and "-- " (two dashes then a space, a control character or the
//     end) start a comment to the end of the line; /* … */ is a comment,
//     not nested; /*+ … */ (optimizer hints) is one too for the analysis.
//   - /*! … */ and MariaDB's /*M! … */ are executable comments: what is
//     inside is SQL. An optional version of 5 or 6 digits follows the
//     marker; a server runs the content only when its own version is at
//     least that one (MariaDB also skips /*!50700 to /*!99999, MySQL every
//     /*M!), and the analyzer reads it (the stricter choice: its actions
//     count). Such comments are recorded (lexed.conds): a stored program's
//     body must end at the same place whichever of them a server skips
//     (routine.go).
//     Comments inside are comments; a second /*! inside is an error.
//
// Outside literals it reads each byte as the client character set m.Charset
// does (charset.go, measured against the server): whitespace such as latin1
// 0xA0 is a space, also after "--"; a control character such as cp1250
// 0x81 ends "--" as a comment start; a byte the set reads in a way this
// lexer does not model stops the text (uncheckable). Inside literals the
// set is taken to keep every ASCII byte a character: in GBK, SJIS or BIG5 a
// backslash may be the second byte of a character, which this lexer does
// not know (Mode.MultiByte, errMultiByte).
func lex(sql string, m Mode) lexed {
	return lexEach(sql, m, nil)
}

// lexEach is lex that hands each token to emit, in order, instead of
// keeping them (the returned lexed has no toks), and leaves code unset:
// for texts too large to keep a token slice of (bulk.go). A nil emit is
// lex.
func lexEach(sql string, m Mode, emit func(token)) lexed {
	l := lexed{errAt: -1}
	add := emit
	if emit == nil {
		l.toks = make([]token, 0, min(len(sql)/4+4, 4096))
		add = func(t token) { l.toks = append(l.toks, t) }
	}
	cs := charsetOf(m.Charset)
	identByte := func(c byte) bool { return identByte(c) && cs.class[c] == clsAsIs }
	n := len(sql)
	var code []byte // copy-on-write of sql, made on the first blanking
	blank := func(from, to int) {
		if emit != nil {
			return // code is not kept
		}
		if code == nil {
			code = []byte(sql)
		}
		for k := from; k < to && k < n; k++ {
			if code[k] != '\n' {
				code[k] = ' '
			}
		}
	}
	fail := func(at int, err error) {
		l.errAt, l.err = at, err
	}
	inExec, execClose := false, -1
	i := 0
scan:
	for i < n {
		c := sql[i]
		switch cs.class[c] {
		case clsSpace:
			blank(i, i+1)
			i++
			continue
		case clsUnmodelled:
			fail(i, errCharsetByte(cs, i, c))
			break scan
		}
		if c == '-' && i+2 < n && sql[i+1] == '-' && cs.class[sql[i+2]] == clsUnmodelled {
			fail(i+2, errCharsetByte(cs, i+2, sql[i+2])) // whether "--" starts a comment
			break scan
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#' || (c == '-' && i+1 < n && sql[i+1] == '-' && (i+2 == n || sql[i+2] <= ' ' || sql[i+2] == 0x7f || cs.class[sql[i+2]] == clsSpace || cs.class[sql[i+2]] == clsDashEnd)):
			j := i
			for j < n && sql[j] != '\n' {
				j++
			}
			blank(i, j)
			i = j
		case c == '/' && i+1 < n && sql[i+1] == '*':
			if i+2 < n && (sql[i+2] == '!' || (sql[i+2] == 'M' && i+3 < n && sql[i+3] == '!')) {
				if inExec {
					fail(i, fmt.Errorf("an executable comment inside another at byte %d", i))
					break scan
				}
				j := i + 3
				if sql[i+2] == 'M' {
					j++
				}
				versioned := digits(sql, j) >= 5
				if versioned {
					j += min(digits(sql, j), 6)
				}
				// A server older than the version, and MySQL for /*M!,
				// skip the comment to its first */: both readings must
				// end it there.
				execClose = -1
				if versioned || sql[i+2] == 'M' {
					if execClose = indexFrom(sql, j, "*/"); execClose < 0 {
						execClose = n
					}
					l.conds = append(l.conds, condComment{start: j, end: execClose, marker: sql[i+2 : j]})
				}
				blank(i, j)
				inExec = true
				i = j
				continue
			}
			end := indexFrom(sql, i+2, "*/")
			if end < 0 {
				fail(i, fmt.Errorf("%w comment at byte %d", errUnterminated, i))
				break scan
			}
			blank(i, end+2)
			i = end + 2
		case c == '*' && inExec && i+1 < n && sql[i+1] == '/':
			if execClose >= 0 && execClose != i {
				fail(i, fmt.Errorf("the executable comment at byte %d ends elsewhere when skipped as a comment", i))
				break scan
			}
			blank(i, i+2)
			inExec = false
			i += 2
		case c == '\'' || (c == '"' && !m.ANSIQuotes):
			j, bs, ok := quoted(sql, i, c, !m.NoBackslashEscapes)
			l.backslashInQuote = l.backslashInQuote || bs
			if !ok {
				fail(i, fmt.Errorf("%w string at byte %d", errUnterminated, i))
				break scan
			}
			add(token{tokString, i, j})
			i = j
		case c == '`' || c == '"':
			j, bs, ok := quoted(sql, i, c, false)
			l.backslashInQuote = l.backslashInQuote || (bs && c == '"')
			if !ok {
				fail(i, fmt.Errorf("%w quoted identifier at byte %d", errUnterminated, i))
				break scan
			}
			add(token{tokQuoted, i, j})
			i = j
		case c == '@':
			j := i + 1
			if j < n && sql[j] == '@' {
				j++
			}
			if j < n && (sql[j] == '\'' || sql[j] == '"' || sql[j] == '`') {
				k, bs, ok := quoted(sql, j, sql[j], sql[j] != '`' && !m.NoBackslashEscapes)
				l.backslashInQuote = l.backslashInQuote || (bs && sql[j] != '`')
				if !ok {
					fail(i, fmt.Errorf("%w variable name at byte %d", errUnterminated, i))
					break scan
				}
				j = k
			} else {
				for j < n && (identByte(sql[j]) || sql[j] == '.') {
					j++
				}
			}
			add(token{tokVar, i, j})
			i = j
		case c == ';':
			add(token{tokSemicolon, i, i + 1})
			i++
		case identByte(c):
			j, kind := word(sql, i, identByte)
			add(token{kind, i, j})
			i = j
		default:
			add(token{tokOp, i, i + 1})
			i++
		}
	}
	if inExec && l.err == nil {
		fail(n, fmt.Errorf("%w executable comment", errUnterminated))
	}
	if code == nil {
		l.code = sql
	} else {
		l.code = string(code)
	}
	return l
}

// quoted returns the end of the quoted token that starts at sql[i] with
// quote q, whether a backslash occurs in it, and false if it never ends.
func quoted(sql string, i int, q byte, backslashEscapes bool) (end int, backslash, ok bool) {
	for j := i + 1; j < len(sql); j++ {
		switch sql[j] {
		case '\\':
			backslash = true
			if backslashEscapes {
				j++
			}
		case q:
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1, backslash, true
		}
	}
	return len(sql), backslash, false
}

// word returns the end of the identifier, keyword or number at sql[i].
// Only a plain decimal number (digits, an optional fraction and exponent)
// not run together with identifier bytes is a tokNumber: in MySQL 1e5x or
// 2abc are identifiers.
func word(sql string, i int, identByte func(byte) bool) (int, tokKind) {
	n := len(sql)
	j := i
	for j < n && isDigit(sql[j]) {
		j++
	}
	if j > i { // a number, unless identifier bytes follow
		k := j
		if k+1 < n && sql[k] == '.' && isDigit(sql[k+1]) {
			k++
			for k < n && isDigit(sql[k]) {
				k++
			}
		}
		if k < n && (sql[k] == 'e' || sql[k] == 'E') {
			e := k + 1
			if e < n && (sql[e] == '+' || sql[e] == '-') {
				e++
			}
			if e < n && isDigit(sql[e]) {
				for e < n && isDigit(sql[e]) {
					e++
				}
				k = e
			}
		}
		if k >= n || !identByte(sql[k]) {
			return k, tokNumber
		}
	}
	for j < n && identByte(sql[j]) {
		j++
	}
	return j, tokWord
}

func identByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_' || c == '$' || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digits counts the decimal digits at sql[i:].
func digits(sql string, i int) int {
	k := 0
	for i+k < len(sql) && isDigit(sql[i+k]) {
		k++
	}
	return k
}

func indexFrom(s string, from int, sub string) int {
	if from > len(s) {
		return -1
	}
	if k := strings.Index(s[from:], sub); k >= 0 {
		return from + k
	}
	return -1
}

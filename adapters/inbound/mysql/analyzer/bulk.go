package analyzer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser/charset"
)

// A text over MaxSize is not parsed (parsing costs about 100 times the
// text in memory), but a bulk load sent as text, one multi-row INSERT of
// literals as mysqldump writes it, is read by one linear lexical pass that
// keeps no tokens: each statement must have the shape
//
//	INSERT [LOW_PRIORITY | DELAYED | HIGH_PRIORITY] [IGNORE] [INTO] name[.name]
//	    [(column, …)] {VALUES | VALUE} (value, …), (value, …) …
//
// where a value is a literal: a number or string (with unary signs, an
// introducer such as _utf8mb4 or X, adjacent strings), 0x…/0b…, NULL, TRUE,
// FALSE or DEFAULT. Such a statement calls no function and reads no table:
// its analysis is INSERT on its table, as the parser would report it
// (TestBulkAgreesWithParser). Any other token makes the text uncheckable,
// as every text over MaxSize was before.

// bulkState is where the bulk reader is within one statement.
type bulkState uint8

const (
	bsStart      bulkState = iota // before INSERT
	bsModifiers                   // after INSERT: modifiers, INTO, the table
	bsDot                         // after the table's first name: '.', '(' or VALUES
	bsSecond                      // after '.': the table's second name
	bsColumns                     // after the table: '(' columns or VALUES
	bsColumn                      // inside (columns): a name
	bsColumnSep                   // inside (columns): ',' or ')'
	bsValues                      // after the columns: VALUES
	bsRow                         // before a row's '('
	bsValue                       // inside a row: a value (or ')' for an empty row)
	bsAfterValue                  // inside a row: ',' or ')' (or another string)
	bsRowSep                      // after a row: ',' or the statement's end
	bsIntroduced                  // after an introducer (_utf8mb4, X): its string, at once
)

// bulkReader reads the statements of one text, token by token.
type bulkReader struct {
	sql    string
	db     string
	mode   Mode
	state  bulkState
	from   int   // the byte after the previous statement's semicolon
	start  int   // the statement's first token (INSERT)
	starts []int // each statement's first token
	heads  []int // the end of each statement's VALUES keyword
	head   int
	schema string // the table, as the parser names it
	name   string
	prev   token // the previous token of the statement
	sign   bool  // a unary sign was read before the value
	join   bool  // the value is a plain string: another may follow it ('a' 'b')
	err    error
	stmts  []Statement
}

// analyzeLarge reads sql, over MaxSize, as bulk INSERTs in mode m, or
// returns it as uncheckable. Where a string holds a backslash and the
// session's sql_mode is not known exactly, every other reading of
// NO_BACKSLASH_ESCAPES and ANSI_QUOTES must be bulk INSERTs on the same
// tables too (modes.go).
func analyzeLarge(sql, db string, m Mode) Result {
	out, backslash, err := analyzeBulk(sql, db, m)
	if err == nil && backslash && !m.Exact {
		for _, flip := range [][2]bool{{true, false}, {false, true}, {true, true}} {
			alt := m
			alt.NoBackslashEscapes = m.NoBackslashEscapes != flip[0]
			alt.ANSIQuotes = m.ANSIQuotes != flip[1]
			other, _, aerr := analyzeBulk(sql, db, alt)
			if err = aerr; err == nil && !sameTables(out.Statements, other.Statements) {
				err = fmt.Errorf("it reads as other statements under sql_mode %s", alt)
			}
			if err != nil {
				break
			}
		}
	}
	if err != nil {
		return unknown(sql, fmt.Errorf("%w: the text is %d bytes, over the %d the Sidecar parses, and %v", ErrUncheckable, len(sql), MaxSize, err))
	}
	return out
}

// sameTables reports whether two readings have the same statements, by
// their targets.
func sameTables(a, b []Statement) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i].Analysis.Targets, ",") != strings.Join(b[i].Analysis.Targets, ",") {
			return false
		}
	}
	return true
}

// analyzeBulk reads sql as bulk INSERTs in mode m; the error says why it
// is not one. backslash: a string holds a backslash.
func analyzeBulk(sql, db string, m Mode) (out Result, backslash bool, err error) {
	out, _, backslash, err = readBulk(sql, db, m)
	return out, backslash, err
}

// readBulk is analyzeBulk that also returns the reader, whose starts and
// heads say where each statement's INSERT starts and its VALUES ends.
func readBulk(sql, db string, m Mode) (out Result, b *bulkReader, backslash bool, err error) {
	b = &bulkReader{sql: sql, db: db, mode: m}
	l := lexEach(sql, m, b.token)
	if l.err != nil {
		return Result{}, nil, false, l.err
	}
	b.end(len(sql))
	if b.err != nil {
		return Result{}, nil, false, b.err
	}
	out = Result{Statements: b.stmts}
	out.leaves(m)
	return out, b, l.backslashInQuote, nil
}

// notBulk is the error of a token outside the bulk INSERT shape.
func (b *bulkReader) notBulk(t token) {
	if b.err == nil {
		b.err = fmt.Errorf("at byte %d: only a multi-row INSERT of literal values is read at this size", t.start)
	}
}

func (b *bulkReader) text(t token) string { return b.sql[t.start:t.end] }

func (b *bulkReader) token(t token) {
	if b.err != nil {
		return
	}
	defer func() { b.prev = t }()
	w := ""
	if t.kind == tokWord {
		w = strings.ToUpper(b.text(t))
	}
	op := byte(0)
	if t.kind == tokOp {
		op = b.sql[t.start]
	}
	switch b.state {
	case bsStart:
		switch {
		case t.kind == tokSemicolon:
			b.from = t.end
		case w == "INSERT":
			b.start, b.schema, b.name = t.start, "", ""
			b.state = bsModifiers
		default:
			b.notBulk(t)
		}
	case bsModifiers:
		switch {
		case w == "LOW_PRIORITY" || w == "DELAYED" || w == "HIGH_PRIORITY" || w == "IGNORE" || w == "INTO":
		case t.kind == tokWord && !reservedAfterInsert(w), t.kind == tokQuoted:
			b.name = b.identifier(t)
			b.state = bsDot
		default:
			b.notBulk(t)
		}
	case bsDot:
		switch {
		case op == '.' && t.start == b.prev.end:
			b.state = bsSecond
		default:
			b.state = bsColumns
			b.token(t)
			return
		}
	case bsSecond:
		if (t.kind == tokWord || t.kind == tokQuoted) && t.start == b.prev.end {
			b.schema, b.name = b.name, b.identifier(t)
			b.state = bsColumns
			return
		}
		b.notBulk(t)
	case bsColumns:
		switch {
		case op == '(':
			b.state = bsColumn
		case w == "VALUES" || w == "VALUE":
			b.state, b.head = bsRow, t.end
		default:
			b.notBulk(t)
		}
	case bsColumn:
		switch {
		case t.kind == tokQuoted, t.kind == tokWord && !reservedAfterInsert(w):
			b.state = bsColumnSep
		case op == ')' && b.prev.kind == tokOp && b.sql[b.prev.start] == '(':
			b.state = bsValues
		default:
			b.notBulk(t)
		}
	case bsColumnSep:
		switch op {
		case ',':
			b.state = bsColumn
		case ')':
			b.state = bsValues
		default:
			b.notBulk(t)
		}
	case bsValues:
		if w == "VALUES" || w == "VALUE" {
			b.state, b.head = bsRow, t.end
			return
		}
		b.notBulk(t)
	case bsRow:
		if op == '(' {
			b.state, b.sign = bsValue, false
			return
		}
		b.notBulk(t)
	case bsValue:
		b.value(t, w, op)
	case bsIntroduced:
		if t.kind == tokString && t.start == b.prev.end && b.introduced(t) {
			b.state, b.join = bsAfterValue, false // X'1f' '2f' is an error
			return
		}
		b.notBulk(t)
	case bsAfterValue:
		switch {
		case op == ',':
			b.state, b.sign = bsValue, false
		case op == ')':
			b.state = bsRowSep
		case t.kind == tokString && b.prev.kind == tokString && b.join:
			// 'a' 'b': adjacent strings are one
		default:
			b.notBulk(t)
		}
	case bsRowSep:
		switch {
		case op == ',':
			b.state = bsRow
		case t.kind == tokSemicolon:
			b.end(t.start)
		default:
			b.notBulk(t)
		}
	}
}

// value reads a token where a row's value may start.
func (b *bulkReader) value(t token, w string, op byte) {
	b.join = t.kind == tokString && !b.sign
	switch {
	case op == '-' || op == '+':
		b.sign = true // a unary sign, also repeated: - -1
	case op == ')' && !b.sign && b.prev.kind == tokOp && b.sql[b.prev.start] == '(':
		b.state = bsRowSep // VALUES (): a row of defaults
	case t.kind == tokNumber && !plainNumber(b.text(t)):
		b.notBulk(t) // the parser refuses (or fails on) some long or huge numbers
	case t.kind == tokNumber, t.kind == tokString:
		b.state = bsAfterValue
	case t.kind == tokWord && !b.sign && (w == "NULL" || w == "TRUE" || w == "FALSE" || w == "DEFAULT"):
		b.state = bsAfterValue
	case t.kind == tokWord && literalWord(b.text(t)):
		b.state = bsAfterValue
	case t.kind == tokWord && introducer(w):
		b.state = bsIntroduced // _utf8mb4'…', X'…', B'…', N'…'
	default:
		b.notBulk(t)
	}
}

// end closes the statement that runs to byte at (its semicolon, or the
// text's end).
func (b *bulkReader) end(at int) {
	if b.err != nil {
		return
	}
	switch b.state {
	case bsStart:
		return
	case bsRowSep:
	default:
		b.err = fmt.Errorf("at byte %d: the INSERT ends before its last row", at)
		return
	}
	w := newWalker(b.db, b.mode, 0)
	w.Act("INSERT")
	w.table(b.schema, b.name)
	st := w.statement()
	// As the parser gives it: from the previous semicolon, so with the
	// comments before the INSERT.
	s, e := trimmed(b.sql, b.from, at)
	st.Text = b.sql[s:e]
	b.stmts = append(b.stmts, st)
	b.starts = append(b.starts, b.start)
	b.heads = append(b.heads, b.head)
	b.state, b.from = bsStart, at+1
}

// identifier is a name token as the parser names it.
func (b *bulkReader) identifier(t token) string {
	s, ok := identifier(b.sql, t)
	if !ok {
		b.notBulk(t)
	}
	return s
}

// identifier is the name token t as the parser names it: a quoted name
// without its quotes, a doubled quote inside as one; false when it is not
// valid UTF-8 (the parser names such a name its own way).
func identifier(sql string, t token) (string, bool) {
	s := sql[t.start:t.end]
	if !utf8.ValidString(s) {
		return s, false
	}
	if t.kind != tokQuoted {
		return s, true
	}
	q := s[:1]
	return strings.ReplaceAll(s[1:len(s)-1], q+q, q), true
}

// reservedAfterInsert: words that cannot be a table or column name here
// (the parser would read them as keywords, or refuse them).
func reservedAfterInsert(w string) bool {
	switch w {
	case "SELECT", "VALUES", "VALUE", "SET", "PARTITION", "WITH", "TABLE", "ON", "AS", "RETURNING", "INTO", "IGNORE":
		return true
	}
	return false
}

// literalWord: a hexadecimal or binary literal the lexer reads as a word
// (0x1F, 0b101; the x and b are lower case only: 0X1F is a name).
func literalWord(w string) bool {
	if len(w) < 3 || w[0] != '0' || (w[1] != 'x' && w[1] != 'b') {
		return false
	}
	for i := 2; i < len(w); i++ {
		c := w[i]
		hex := w[1] == 'x' && (isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f'))
		if !hex && !(w[1] == 'b' && (c == '0' || c == '1')) {
			return false
		}
	}
	return true
}

// plainNumber: a number the parser surely reads: at most 64 bytes (its
// test_driver fails on some decimals over 81 digits) and, with an
// exponent, within float64's range.
func plainNumber(n string) bool {
	if len(n) > 64 {
		return false
	}
	if strings.ContainsAny(n, "eE") {
		_, err := strconv.ParseFloat(n, 64)
		return err == nil
	}
	return true
}

// introduced reports whether string t may follow the introducer before it:
// X'…' holds an even number of hexadecimal digits and B'…' binary digits
// only (B”” is an error to the parser); after N or _charset any string.
func (b *bulkReader) introduced(t token) bool {
	w, body := b.text(b.prev), b.sql[t.start+1:t.end-1]
	switch {
	case b.sql[t.start] != '\'':
		return false
	case w == "X" || w == "x":
		return len(body)%2 == 0 && strings.Trim(body, "0123456789abcdefABCDEF") == ""
	case w == "B" || w == "b":
		return strings.Trim(body, "01") == ""
	}
	return true
}

// introducer: a word that may stand right before a string literal: X, B, N
// or a character set name (_latin1, _utf8mb4) that the parser knows (its
// lexer's own test; _0 is a name, and the string after it an error).
func introducer(w string) bool {
	if w == "X" || w == "B" || w == "N" {
		return true
	}
	if len(w) < 2 || w[0] != '_' {
		return false
	}
	cs, _ := charset.GetCharsetInfo(w[1:])
	return cs != nil
}

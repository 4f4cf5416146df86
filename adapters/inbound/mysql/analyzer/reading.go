package analyzer

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// readingModes sorts MariaDB's sql_mode names by what they do to how a text
// reads: followed (the analyzer reads the text as the mode says), harmless
// (only the meaning of values, dates, errors or SHOW output changes), or
// unmodelled (the grammar changes in a way the analyzer does not follow:
// every text is uncheckable). TestSQLModesAllSorted checks the list against
// the server's own (information_schema.SYSTEM_VARIABLES).
var readingModes = map[string]string{
	"NO_BACKSLASH_ESCAPES": "followed", "ANSI_QUOTES": "followed", "PIPES_AS_CONCAT": "followed",
	"IGNORE_SPACE": "followed", "HIGH_NOT_PRECEDENCE": "followed", "ANSI": "followed",
	"ORACLE": "unmodelled", "MSSQL": "unmodelled", "DB2": "unmodelled", "POSTGRESQL": "unmodelled", "MAXDB": "unmodelled",
	"REAL_AS_FLOAT": "harmless", "IGNORE_BAD_TABLE_OPTIONS": "harmless", "ONLY_FULL_GROUP_BY": "harmless",
	"NO_UNSIGNED_SUBTRACTION": "harmless", "NO_DIR_IN_CREATE": "harmless", "NO_KEY_OPTIONS": "harmless",
	"NO_TABLE_OPTIONS": "harmless", "NO_FIELD_OPTIONS": "harmless", "MYSQL323": "harmless", "MYSQL40": "harmless",
	"NO_AUTO_VALUE_ON_ZERO": "harmless", "STRICT_TRANS_TABLES": "harmless", "STRICT_ALL_TABLES": "harmless",
	"NO_ZERO_IN_DATE": "harmless", "NO_ZERO_DATE": "harmless", "ALLOW_INVALID_DATES": "harmless",
	"ERROR_FOR_DIVISION_BY_ZERO": "harmless", "TRADITIONAL": "harmless", "NO_AUTO_CREATE_USER": "harmless",
	"NO_ENGINE_SUBSTITUTION": "harmless", "PAD_CHAR_TO_FULL_LENGTH": "harmless", "EMPTY_STRING_IS_NULL": "harmless",
	"SIMULTANEOUS_ASSIGNMENT": "harmless", "TIME_ROUND_FRACTIONAL": "harmless",
}

// ReadingModes returns how the analyzer treats each sql_mode name:
// "followed", "harmless" or "unmodelled" (a copy).
func ReadingModes() map[string]string {
	out := make(map[string]string, len(readingModes))
	for k, v := range readingModes {
		out[k] = v
	}
	return out
}

// WithSQLMode returns m with its sql_mode fields (NoBackslashEscapes,
// ANSIQuotes, PipesAsConcat, IgnoreSpace, HighNotPrecedence, Unmodelled)
// set from sqlMode, a comma-separated list as @@sql_mode gives it (any
// case; ANSI sets ANSI_QUOTES, PIPES_AS_CONCAT and IGNORE_SPACE, as the
// server expands it). A name of readingModes' "unmodelled", or one it does
// not list, becomes Unmodelled. Charset, MultiByte and Exact are kept.
func (m Mode) WithSQLMode(sqlMode string) Mode {
	m.NoBackslashEscapes, m.ANSIQuotes, m.PipesAsConcat, m.IgnoreSpace, m.HighNotPrecedence, m.Unmodelled = false, false, false, false, false, ""
	for _, name := range strings.Split(sqlMode, ",") {
		name = strings.ToUpper(strings.TrimSpace(name))
		switch name {
		case "":
		case "NO_BACKSLASH_ESCAPES":
			m.NoBackslashEscapes = true
		case "ANSI_QUOTES":
			m.ANSIQuotes = true
		case "PIPES_AS_CONCAT":
			m.PipesAsConcat = true
		case "IGNORE_SPACE":
			m.IgnoreSpace = true
		case "HIGH_NOT_PRECEDENCE":
			m.HighNotPrecedence = true
		case "ANSI":
			m.ANSIQuotes, m.PipesAsConcat, m.IgnoreSpace = true, true, true
		default:
			if readingModes[name] != "harmless" && m.Unmodelled == "" {
				m.Unmodelled = name
			}
		}
	}
	return m
}

// readingChange is what one statement does to how the statements after it
// read: a new client character set, a new sql_mode, or something only the
// server can tell (CALL, EXECUTE, SET from an expression or DEFAULT).
type readingChange struct {
	charset, sqlMode *string
	unknown          bool
}

// setChange records what a SET statement's session assignments do to the
// reading (SET NAMES, SET CHARACTER SET, character_set_client, sql_mode).
func (w *walker) setChange(v *ast.SetStmt) {
	for _, a := range v.Variables {
		if a == nil || a.IsGlobal || a.IsInstance {
			continue
		}
		name := strings.ToLower(a.Name)
		var dst **string
		switch {
		case a.Name == ast.SetNames || a.Name == ast.SetCharset || (a.IsSystem && name == "character_set_client"):
			dst = &w.st.change.charset
		case a.IsSystem && name == "sql_mode":
			dst = &w.st.change.sqlMode
		default:
			continue
		}
		val, ok := constantName(a.Value)
		if !ok {
			w.st.change.unknown = true
			continue
		}
		*dst = &val
	}
}

// constantName returns the value of a string literal or a bare name (SET
// NAMES latin1, SET sql_mode = ansi_quotes), and false for anything else.
func constantName(e ast.ExprNode) (string, bool) {
	switch x := e.(type) {
	case *test_driver.ValueExpr:
		if x.Kind() == test_driver.KindString {
			return x.GetString(), true
		}
	case *ast.ColumnNameExpr:
		if x.Name != nil && x.Name.Table.O == "" {
			return x.Name.Name.O, true
		}
	}
	return "", false
}

// after returns the reading after st ran in mode m, and false when only
// the server can tell it.
func (c readingChange) after(m Mode) (Mode, bool) {
	if c.unknown {
		return m, false
	}
	if c.charset != nil {
		m.Charset = strings.ToLower(*c.charset)
	}
	if c.sqlMode != nil {
		m = m.WithSQLMode(*c.sqlMode)
	}
	return m, true
}

func (c readingChange) changes() bool { return c.unknown || c.charset != nil || c.sqlMode != nil }

// readingWords reports whether a statement's tokens may change the reading
// of what follows: a word NAMES, CHARSET, CHARACTER, CHARACTER_SET_CLIENT
// or SQL_MODE (also as @@…sql_mode), or a first word CALL or EXECUTE. It is
// a cheap superset of readingChange, to find where a text must be split.
func readingWords(sql string, toks []token) bool {
	for k, t := range toks {
		w := sql[t.start:t.end]
		switch t.kind {
		case tokWord:
			if eqFold(w, "NAMES") || eqFold(w, "CHARSET") || eqFold(w, "CHARACTER") || eqFold(w, "CHARACTER_SET_CLIENT") || eqFold(w, "SQL_MODE") ||
				(k == 0 && (eqFold(w, "CALL") || eqFold(w, "EXECUTE"))) {
				return true
			}
		case tokVar:
			if l := strings.ToLower(w); strings.HasSuffix(l, "sql_mode") || strings.HasSuffix(l, "character_set_client") {
				return true
			}
		}
	}
	return false
}

// splitReading returns the end (after its semicolon) of the first statement
// of l that may change how the statements after it read and that has more
// text after it, or -1.
func splitReading(sql string, l lexed) int {
	first := 0
	for k := 0; k < len(l.toks); k++ {
		if l.toks[k].kind != tokSemicolon {
			continue
		}
		stmt := l.toks[first:k]
		first = k + 1
		if len(stmt) == 0 || !readingWords(sql, stmt) {
			continue
		}
		end := l.toks[k].end
		if moreAfter(l, k+1) {
			return end
		}
		return -1
	}
	return -1
}

// moreAfter reports whether anything but semicolons follows token k (or
// the lexer stopped on an unreadable rest).
func moreAfter(l lexed, k int) bool {
	if l.err != nil {
		return true
	}
	for ; k < len(l.toks); k++ {
		if l.toks[k].kind != tokSemicolon {
			return true
		}
	}
	return false
}

// analyzeSplit reads sql as the server runs a multi-statement text whose
// statement ending at cut (after its semicolon) changes the reading: the
// head in m, the rest in the reading (and current database) the head
// leaves. Where the head's change is one only the server knows, the text
// is uncheckable.
func analyzeSplit(sql, db string, m Mode, nest, cut int) Result {
	head := analyze(sql[:cut], db, m, nest)
	if head.Err != nil {
		return unknown(sql, head.Err)
	}
	if !head.LeavesKnown {
		return unknown(sql, fmt.Errorf("%w: a statement changes the client character set or sql_mode in a way only the server knows (CALL, EXECUTE, SET from an expression), and more statements follow it", ErrUncheckable))
	}
	for _, st := range head.Statements {
		if st.UseDB != "" {
			db = st.UseDB
		}
	}
	rest := analyze(sql[cut:], db, head.Leaves, nest)
	if rest.Err != nil {
		return unknown(sql, rest.Err)
	}
	return Result{Statements: append(head.Statements, rest.Statements...), Changes: true, Leaves: rest.Leaves, LeavesKnown: rest.LeavesKnown}
}

// leaves sets r's Changes, Leaves and LeavesKnown from its statements, read
// in mode m.
func (r *Result) leaves(m Mode) {
	r.Leaves, r.LeavesKnown = m, true
	for _, st := range r.Statements {
		if !st.change.changes() {
			continue
		}
		r.Changes = true
		if r.LeavesKnown {
			r.Leaves, r.LeavesKnown = st.change.after(r.Leaves)
		}
	}
}

// unknownNames reads a text the parser refused that is one
// SET NAMES|CHARSET|CHARACTER SET name [COLLATE name] (names bare, quoted
// or strings), at most followed by semicolons: the parser refuses a
// character set or collation it does not know ("[parser:1115]Unknown
// character set"), which the server may know or refuse with its own error
// (1115, 1273). The result is SET: to a set the analyzer's table has
// (KnownCharset: the parser knows fewer), the rest of a text is read in it;
// to any other, the change is one only the server can tell (the listener
// asks the server again afterwards, and a text going on after it is
// uncheckable). ok is false for any other text. m is the mode it is read in.
func unknownNames(sql string, toks []token, m Mode) (Result, bool) {
	end := len(toks)
	for end > 0 && toks[end-1].kind == tokSemicolon {
		end--
	}
	ts := toks[:end]
	word := func(k int, w string) bool { return wordAt(sql, ts, k, w) }
	name := func(k int) bool {
		return k < len(ts) && (ts[k].kind == tokWord || ts[k].kind == tokString || ts[k].kind == tokQuoted)
	}
	k := 1
	switch {
	case !word(0, "SET"):
		return Result{}, false
	case word(1, "NAMES"), word(1, "CHARSET"):
		k = 2
	case word(1, "CHARACTER") && word(2, "SET"):
		k = 3
	default:
		return Result{}, false
	}
	if !name(k) {
		return Result{}, false
	}
	set := ts[k]
	k++
	if word(k, "COLLATE") && name(k+1) {
		k += 2
	}
	if k != len(ts) {
		return Result{}, false
	}
	st := Statement{Statement: whole(sql[ts[0].start:ts[len(ts)-1].end], []string{"SET"})}
	if cs, ok := plainName(sql, set); ok && KnownCharset(cs) {
		st.change.charset = &cs // a set the analyzer's table has (big5, cp1250, sjis, …)
	} else {
		st.change.unknown = true
	}
	r := Result{Statements: []Statement{st}}
	r.leaves(m)
	return r, true
}

// plainName is a name token's text without its quotes, false when it holds
// a quote or a backslash (read as the server would only with more care).
func plainName(sql string, t token) (string, bool) {
	s := sql[t.start:t.end]
	if t.kind != tokWord {
		s = s[1 : len(s)-1]
	}
	return s, !strings.ContainsAny(s, "'\"\\`")
}

package analyzer

import (
	"fmt"
	"slices"
	"strings"
)

// A stored program (CREATE PROCEDURE, FUNCTION, TRIGGER, EVENT) is decided
// by its head: what it creates and its name. Its body runs only when the
// program is called or fired, so the analyzer does not read it, and a body
// the parser's grammar does not know (SIGNAL, RESIGNAL, SELECT … INTO a
// local variable, handlers) does not make the text UNKNOWN.
//
// What the analyzer must know of the body is where it ends, since a
// multi-statement text goes on after it. The server reads the body as one
// statement: a compound one (BEGIN … END, IF … END IF, a labelled LOOP …)
// whose semicolons are inside it, or a simple one that ends at the first
// semicolon. bodyEnd finds that end by counting openers and END over
// the lexer's tokens (the tokens the server reads: strings, quoted names and
// comments are already set apart). It counts an opener only where it is
// sure the server reads one (IF, LOOP, WHILE, REPEAT, FOR, BEGIN where a
// statement starts; CASE anywhere) and takes every END as a close, so
// where it is wrong it ends the body sooner than the server, never later:
// the rest is then read as statements of their own (held or refused), and
// no statement after the body can hide inside it.

// routineObjects are the stored programs a CREATE may name.
var routineObjects = map[string]bool{"PROCEDURE": true, "FUNCTION": true, "TRIGGER": true, "EVENT": true}

// analyzeRoutine reads a text whose first statement creates a stored
// program (lexed as l in mode m): that statement by its head, the rest of
// the text as its own. ok is false when the text does not start so, or the
// end of the body is not certain (the text is then analysed as any other).
func analyzeRoutine(sql, db string, m Mode, nest int, l lexed) (Result, bool) {
	if len(l.toks) < 4 || !wordIs(sql, l.toks[0], "CREATE") || (l.backslashInQuote && !m.Exact) {
		return Result{}, false // under another sql_mode the tokens may differ
	}
	st, end, ok := routineHead(sql, db, m, nest, l.toks)
	if !ok {
		return Result{}, false
	}
	if !sameEndSkipped(sql, db, m, nest, l, end) {
		return unknown(sql, errSkippedBody), true
	}
	if end == len(l.toks) && l.err != nil {
		return Result{}, false // the body runs into the unreadable rest
	}
	st.Text = sql[l.toks[0].start:l.toks[end-1].end]
	out := Result{Statements: []Statement{st}}
	if !moreAfter(l, end) {
		out.leaves(m)
		return out, true
	}
	rest := analyze(sql[l.toks[end].end:], db, m, nest)
	if rest.Err != nil {
		return unknown(sql, rest.Err), true
	}
	out.Statements = append(out.Statements, rest.Statements...)
	out.leaves(m)
	return out, true
}

// errSkippedBody: a stored program whose body would end elsewhere on a
// server that skips one of its executable comments.
var errSkippedBody = fmt.Errorf("%w: a stored program's body ends elsewhere on a server that skips one of its versioned executable comments (/*!NNNNN … */, /*M! … */)", ErrUncheckable)

// sameEndSkipped reports whether the stored program that l reads as ending
// before token end ends at the same byte on every server, whichever of its
// versioned executable comments that server skips (serverReadings): a
// BEGIN or END only some servers read must not move the end of the body.
// A reading that leaves nothing of the statement (mariadb-dump's
// /*!50003 CREATE*/ … on a server older than 5.0.3) runs nothing of it.
func sameEndSkipped(sql, db string, m Mode, nest int, l lexed, end int) bool {
	stop := restAt(sql, l.toks, end)
	var conds []condComment
	for _, c := range l.conds {
		if c.start < stop {
			conds = append(conds, c)
		}
	}
	for _, runs := range serverReadings(conds) {
		toks := make([]token, 0, len(l.toks))
		for _, t := range l.toks {
			if !skippedBy(conds, runs, t) {
				toks = append(toks, t)
			}
		}
		if len(toks) == 0 || toks[0].start >= stop {
			continue
		}
		if !wordIs(sql, toks[0], "CREATE") {
			return false
		}
		_, e, ok := routineHead(sql, db, m, nest, toks)
		if !ok || restAt(sql, toks, e) != stop {
			return false
		}
	}
	return true
}

// restAt is the byte where what follows the statement ending before
// toks[e] starts: its semicolon, or the end of sql.
func restAt(sql string, toks []token, e int) int {
	if e < len(toks) {
		return toks[e].start
	}
	return len(sql)
}

// skippedBy reports whether t lies in a comment runs says is skipped.
func skippedBy(conds []condComment, runs []bool, t token) bool {
	for i, c := range conds {
		if t.start >= c.start && t.end <= c.end {
			return !runs[i]
		}
	}
	return false
}

// serverReadings returns, for each kind of server, which of conds it runs
// (one []bool per distinct reading): MySQL of version V runs /*!N when
// N <= V and skips every /*M!; MariaDB of version V runs /*!N when N <=
// V, except 50700 to 99999 (MySQL 5.7 and later, which MariaDB skips: it
// reports itself as 5.5.5), and /*M!N when N <= V, /*M! without a version
// always. Versions tried: 0, each N and N-1, and above them all.
func serverReadings(conds []condComment) [][]bool {
	if len(conds) == 0 {
		return nil
	}
	versions := []int{0, 1 << 30}
	for _, c := range conds {
		if n := markerVersion(c.marker); n > 0 {
			versions = append(versions, n, n-1)
		}
	}
	var out [][]bool
	for _, mariadb := range []bool{false, true} {
		for _, v := range versions {
			runs := make([]bool, len(conds))
			for i, c := range conds {
				runs[i] = serverRuns(c.marker, v, mariadb)
			}
			if !slices.ContainsFunc(out, func(o []bool) bool { return slices.Equal(o, runs) }) {
				out = append(out, runs)
			}
		}
	}
	return out
}

// serverRuns reports whether a server (MariaDB or MySQL) of version v runs
// an executable comment with marker (!50700, M!, M!100500).
func serverRuns(marker string, v int, mariadb bool) bool {
	n := markerVersion(marker)
	if marker[0] == 'M' {
		return mariadb && n <= v
	}
	if mariadb && n >= 50700 && n <= 99999 {
		return false
	}
	return n <= v
}

// markerVersion is the version of a marker, 0 without one.
func markerVersion(marker string) int {
	n := 0
	for _, c := range strings.TrimLeft(marker, "M!") {
		n = n*10 + int(c-'0')
	}
	return n
}

// routineHead reads CREATE [OR REPLACE] [DEFINER = …] [AGGREGATE]
// {PROCEDURE|FUNCTION|TRIGGER|EVENT} [IF NOT EXISTS] name … body from
// toks[0] (CREATE) and returns its statement (no Text yet) and the index
// of the token after the body (its semicolon, or len(toks)).
func routineHead(sql, db string, m Mode, nest int, toks []token) (st Statement, end int, ok bool) {
	k, replace := 1, false
	if wordAt(sql, toks, k, "OR") && wordAt(sql, toks, k+1, "REPLACE") {
		k, replace = k+2, true
	}
	if wordAt(sql, toks, k, "DEFINER") { // DEFINER = user[@host], CURRENT_USER[()], a role
		for k++; k < len(toks) && k < 12 && !isRoutineObject(sql, toks[k]); k++ {
			if toks[k].kind == tokSemicolon {
				return st, 0, false
			}
		}
	}
	if wordAt(sql, toks, k, "AGGREGATE") {
		k++
	}
	if k >= len(toks) || !isRoutineObject(sql, toks[k]) {
		return st, 0, false
	}
	object := strings.ToUpper(sql[toks[k].start:toks[k].end])
	k++
	if wordAt(sql, toks, k, "IF") && wordAt(sql, toks, k+1, "NOT") && wordAt(sql, toks, k+2, "EXISTS") {
		k += 3
	}
	schema, name, k, ok := routineName(sql, toks, k)
	if !ok {
		return st, 0, false
	}
	w := newWalker(db, m, nest)
	w.Act("CREATE", "CREATE_"+object)
	if replace {
		w.Act("ALTER", "ALTER_"+object)
	}
	w.table(schema, name)
	var body int
	switch object {
	case "PROCEDURE", "FUNCTION":
		body, ok = afterParameters(sql, toks, k)
	case "TRIGGER":
		body, ok = triggerBody(sql, toks, k, w)
	case "EVENT":
		body, ok = eventBody(sql, toks, k)
	}
	if !ok {
		return st, 0, false
	}
	end, ok = bodyEnd(sql, toks, body)
	return w.statement(), end, ok
}

// routineName reads name or schema.name at toks[k] (a word or a quoted
// name) and returns the index after it.
func routineName(sql string, toks []token, k int) (schema, name string, next int, ok bool) {
	first, ok := nameAt(sql, toks, k)
	if !ok {
		return "", "", 0, false
	}
	if k+2 < len(toks) && opAt(sql, toks, k+1, '.') {
		second, ok := nameAt(sql, toks, k+2)
		if !ok {
			return "", "", 0, false
		}
		return first, second, k + 3, true
	}
	return "", first, k + 1, true
}

// afterParameters skips a procedure's or function's ( parameters ), its
// RETURNS type and its characteristics, and returns where its body starts.
// A head written otherwise than this reads (a UDF's SONAME) is not a
// stored program of this kind: false. A type or characteristic it does
// not know makes the body start there, which can only end the body sooner.
func afterParameters(sql string, toks []token, k int) (int, bool) {
	if !opAt(sql, toks, k, '(') {
		return 0, false
	}
	k, ok := skipBrackets(sql, toks, k)
	if !ok {
		return 0, false
	}
	if wordAt(sql, toks, k, "RETURNS") {
		if k, ok = skipType(sql, toks, k+1); !ok {
			return 0, false
		}
	}
	for k < len(toks) {
		switch w := upperWord(sql, toks[k]); w {
		case "LANGUAGE", "CONTAINS", "READS", "MODIFIES", "SECURITY":
			k += 2
		case "NO", "DETERMINISTIC":
			k++
		case "NOT":
			k += 2 // NOT DETERMINISTIC
		case "SQL":
			if wordAt(sql, toks, k+1, "SECURITY") {
				k += 3
			} else {
				return k, true // SQL … is no characteristic but SQL SECURITY
			}
		case "DATA":
			k++
		case "COMMENT":
			if k+1 < len(toks) && toks[k+1].kind == tokString {
				k += 2
			} else {
				return k, true
			}
		default:
			return k, true
		}
	}
	return k, true
}

// skipType skips a RETURNS type from toks[k]: a type name (two words for
// DOUBLE PRECISION, CHAR VARYING, LONG VARCHAR, NATIONAL CHAR, …), its
// ( length ), and its attributes; false when its ( is not closed.
func skipType(sql string, toks []token, k int) (int, bool) {
	if k >= len(toks) || toks[k].kind != tokWord {
		return k, true
	}
	k++
	if w := upperWord(sql, tokAt(toks, k)); w == "PRECISION" || w == "VARYING" || w == "VARCHAR" || w == "CHAR" || w == "CHARACTER" || w == "VARBINARY" {
		k++
	}
	if opAt(sql, toks, k, '(') {
		var ok bool
		if k, ok = skipBrackets(sql, toks, k); !ok {
			return 0, false
		}
	}
	for k < len(toks) {
		switch upperWord(sql, toks[k]) {
		case "UNSIGNED", "SIGNED", "ZEROFILL", "BINARY", "ASCII", "UNICODE", "BYTE":
			k++
		case "CHARSET", "COLLATE":
			k += 2
		case "CHARACTER":
			if !wordAt(sql, toks, k+1, "SET") {
				return k, true
			}
			k += 3
		default:
			return k, true
		}
	}
	return k, true
}

// triggerBody reads … ON table FOR EACH ROW [{FOLLOWS|PRECEDES} name] from
// toks[k], adds the table to w's targets, and returns where the body
// starts.
func triggerBody(sql string, toks []token, k int, w *walker) (int, bool) {
	for ; k < len(toks) && !wordIs(sql, toks[k], "ON"); k++ {
		if toks[k].kind == tokSemicolon {
			return 0, false
		}
	}
	schema, table, k, ok := routineName(sql, toks, k+1)
	if !ok || !wordAt(sql, toks, k, "FOR") || !wordAt(sql, toks, k+1, "EACH") || !wordAt(sql, toks, k+2, "ROW") {
		return 0, false
	}
	w.table(schema, table)
	k += 3
	if wordAt(sql, toks, k, "FOLLOWS") || wordAt(sql, toks, k, "PRECEDES") {
		_, _, k, ok = routineName(sql, toks, k+1)
	}
	return k, ok
}

// eventBody returns where an event's body starts: after the first DO
// (a reserved word: the schedule holds none).
func eventBody(sql string, toks []token, k int) (int, bool) {
	for ; k < len(toks); k++ {
		switch {
		case toks[k].kind == tokSemicolon:
			return 0, false
		case wordIs(sql, toks[k], "DO"):
			return k + 1, true
		}
	}
	return 0, false
}

// block is a compound opener bodyEnd counts.
type block uint8

const (
	blockBegin    block = iota
	blockIf             // IF … END IF
	blockCaseStmt       // CASE where a statement starts … END CASE
	blockCaseExpr       // CASE in an expression … END
	blockLoop           // LOOP, REPEAT: statements follow at once
	blockWhile          // WHILE, FOR: statements follow DO
)

// bodyEnd returns the index of the token after the body that starts at
// toks[k]: the semicolon (or len(toks)) after a simple statement, or after
// the END [word] [label] that closes a compound one. ok is false when no
// close is found, or something other than a semicolon follows it.
func bodyEnd(sql string, toks []token, k int) (int, bool) {
	if k >= len(toks) || toks[k].kind == tokSemicolon {
		return 0, false // no body
	}
	if !opensBlock(sql, toks, k) {
		for ; k < len(toks) && toks[k].kind != tokSemicolon; k++ {
		}
		return k, true
	}
	var stack []block
	begin := true // a statement starts at toks[k]
	for ; k < len(toks); k++ {
		t := toks[k]
		if t.kind == tokSemicolon {
			begin = true
			continue
		}
		if t.kind == tokQuoted && begin && opAt(sql, toks, k+1, ':') {
			k++ // a quoted label: the statement it labels follows
			continue
		}
		if t.kind != tokWord || opAt(sql, toks, k-1, '.') { // t.case names a column
			begin = false
			continue
		}
		w := upperWord(sql, t)
		if w == "END" {
			stack = stack[:len(stack)-1]
			switch upperWord(sql, tokAt(toks, k+1)) {
			case "IF", "CASE", "LOOP", "WHILE", "REPEAT", "FOR":
				k++
			}
			if len(stack) == 0 {
				return closeBody(sql, toks, k+1)
			}
			begin = false
			continue
		}
		top := blockBegin
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch {
		case begin && k+2 < len(toks) && opAt(sql, toks, k+1, ':') && toks[k+2].kind == tokWord:
			k++ // a label: the statement it labels follows
		case begin && w == "BEGIN":
			stack = append(stack, blockBegin)
			if wordAt(sql, toks, k+1, "NOT") && wordAt(sql, toks, k+2, "ATOMIC") {
				k += 2
			}
		case begin && w == "IF":
			stack, begin = append(stack, blockIf), false
		case begin && w == "CASE":
			stack, begin = append(stack, blockCaseStmt), false
		case begin && (w == "LOOP" || w == "REPEAT"):
			stack = append(stack, blockLoop)
		case begin && (w == "WHILE" || w == "FOR"):
			stack, begin = append(stack, blockWhile), false
		case begin && w == "DECLARE":
			k, begin = afterHandler(sql, toks, k)
		case len(stack) == 0:
			return 0, false // opensBlock said a block starts here
		case w == "CASE":
			stack, begin = append(stack, blockCaseExpr), false
		case (w == "THEN" || w == "ELSE") && (top == blockIf || top == blockCaseStmt):
			begin = true
		case w == "DO" && top == blockWhile:
			begin = true
		default:
			begin = false
		}
	}
	return 0, false
}

// opensBlock reports whether the body starting at toks[k] is a compound
// statement: an opener, or a label before one.
func opensBlock(sql string, toks []token, k int) bool {
	if opAt(sql, toks, k+1, ':') {
		k += 2
	}
	switch upperWord(sql, tokAt(toks, k)) {
	case "BEGIN", "IF", "CASE", "LOOP", "REPEAT", "WHILE", "FOR":
		return true
	}
	return false
}

// closeBody returns k when the body's last END (and its word) ends before
// toks[k]: the text ends there or a semicolon follows, after at most a
// label.
func closeBody(sql string, toks []token, k int) (int, bool) {
	if k < len(toks) && (toks[k].kind == tokWord || toks[k].kind == tokQuoted) {
		k++ // END label
	}
	if k < len(toks) && toks[k].kind != tokSemicolon {
		return 0, false
	}
	return k, true
}

// afterHandler reads DECLARE {CONTINUE|EXIT|UNDO} HANDLER FOR condition
// [, condition …] from toks[k] (DECLARE) and returns the index of its last
// token and true: the handler's statement starts after it. Any other
// DECLARE returns k and false.
func afterHandler(sql string, toks []token, k int) (int, bool) {
	switch upperWord(sql, tokAt(toks, k+1)) {
	case "CONTINUE", "EXIT", "UNDO":
	default:
		return k, false
	}
	if !wordAt(sql, toks, k+2, "HANDLER") || !wordAt(sql, toks, k+3, "FOR") {
		return k, false
	}
	j := k + 4
	for {
		switch upperWord(sql, tokAt(toks, j)) {
		case "SQLSTATE":
			j++
			if wordAt(sql, toks, j, "VALUE") {
				j++
			}
			if j >= len(toks) || toks[j].kind != tokString {
				return k, false
			}
		case "NOT":
			if !wordAt(sql, toks, j+1, "FOUND") {
				return k, false
			}
			j++
		case "":
			if j >= len(toks) || toks[j].kind != tokNumber {
				return k, false
			}
		}
		// a condition name, SQLWARNING, SQLEXCEPTION, an error number
		if !opAt(sql, toks, j+1, ',') {
			return j, true
		}
		j += 2
	}
}

// isRoutineObject reports whether t is PROCEDURE, FUNCTION, TRIGGER or
// EVENT.
func isRoutineObject(sql string, t token) bool {
	return t.kind == tokWord && routineObjects[strings.ToUpper(sql[t.start:t.end])]
}

// nameAt returns the name token toks[k] as the parser names it (identifier).
func nameAt(sql string, toks []token, k int) (string, bool) {
	if k >= len(toks) || (toks[k].kind != tokWord && toks[k].kind != tokQuoted) {
		return "", false
	}
	return identifier(sql, toks[k])
}

// skipBrackets returns the index after the bracket that closes the one at
// toks[k].
func skipBrackets(sql string, toks []token, k int) (int, bool) {
	depth := 0
	for ; k < len(toks); k++ {
		switch {
		case toks[k].kind == tokSemicolon:
			return 0, false
		case opAt(sql, toks, k, '('):
			depth++
		case opAt(sql, toks, k, ')'):
			if depth--; depth == 0 {
				return k + 1, true
			}
		}
	}
	return 0, false
}

// tokAt is toks[k], or a semicolon past the end.
func tokAt(toks []token, k int) token {
	if k < 0 || k >= len(toks) {
		return token{kind: tokSemicolon}
	}
	return toks[k]
}

// upperWord is t's text in upper case when t is a word, else "".
func upperWord(sql string, t token) string {
	if t.kind != tokWord {
		return ""
	}
	return strings.ToUpper(sql[t.start:t.end])
}

func wordIs(sql string, t token, w string) bool {
	return t.kind == tokWord && eqFold(sql[t.start:t.end], w)
}

func wordAt(sql string, toks []token, k int, w string) bool { return wordIs(sql, tokAt(toks, k), w) }

func opAt(sql string, toks []token, k int, op byte) bool {
	t := tokAt(toks, k)
	return t.kind == tokOp && t.end == t.start+1 && sql[t.start] == op
}

package analyzer

import (
	"slices"
	"strings"
)

// The bulk reader reads the large text agents send most, a multi-row
// INSERT of literal values, in one pass over its tokens (lexEach), without
// a parse tree, which would cost about a kilobyte per token (parsecost.go).
// Rows of literals add nothing to an analysis (no name, no function, no
// statement), so such a statement's analysis is that of its head and first
// row, a short text the analyzer reads as any other; the rows after it are
// only checked to be literals.
//
// A text is read so only when every statement of it is
//
//	INSERT <head> VALUES (<literal>, …), (<literal>, …) …
//
// with its head (everything from INSERT to VALUES, the target, its hints,
// its columns, an OUTPUT clause) and first row at most bulkHead tokens, no
// semicolon, EXEC or other word that runs a text in the head, VALUES at the
// head's own bracket level and not after DEFAULT, each literal a plain
// number (signed or not), a string ('…' or N'…'), a 0x… binary or NULL,
// statements separated by semicolons or nothing, and when the grammar
// reads that head and first row as one INSERT (the caller has checked the
// whole text's limits, checkLimits). Anything else is parsed,
// within the parse budget. TestBulkAgreesWithTheGrammar and FuzzBulk check
// that the two readings agree.

// bulkHead bounds the tokens of a statement's head and first row.
const bulkHead = 4096

// bulkStmt is where one statement of a bulk text lies: its INSERT keyword,
// the end of its first row and the end of its last row (byte offsets).
type bulkStmt struct{ start, first, end int }

// readBulk returns the analysis of text, in database db (lower case), when
// the bulk reader reads it; ok is false when only the parser can tell.
func readBulk(text, db string) (r Result, ok bool) {
	stmts, ok := bulkStatements(text)
	if !ok {
		return Result{}, false
	}
	for _, b := range stmts {
		// The grammar, not the fast path, reads the head: it reads the
		// whole text when that is too long for the fast path.
		head := text[b.start:b.first]
		l := lex(head)
		if unicodeSpace(head, l.toks) || checkDepth(l.toks, head) != nil {
			return Result{}, false
		}
		h := analyzeGrammar(head, db, 0)
		if h.Err != nil || len(h.Statements) != 1 || !slices.Contains(h.Statements[0].Analysis.Actions, "INSERT") {
			return Result{}, false
		}
		st := h.Statements[0]
		st.Text = trimStatement(text[b.start:b.end])
		r.Statements = append(r.Statements, st)
	}
	if len(r.Statements) == 1 {
		r.Statements[0].Text = trimStatement(text)
	}
	return r, true
}

// The states of bulkStatements.
const (
	bulkStart    = iota // before a statement: INSERT, or ;
	bulkInHead          // from INSERT to VALUES
	bulkRow             // after VALUES or a row's comma: (
	bulkValue           // after ( or a value's comma: a literal
	bulkSigned          // after a sign: a number
	bulkAfter           // after a literal: , or )
	bulkAfterRow        // after a row's ): , ; INSERT or the end
)

// bulkStatements splits text into bulk INSERT statements (see above, up to
// what the analyzer must confirm of each head); ok is false when the text
// is anything else.
func bulkStatements(text string) (stmts []bulkStmt, ok bool) {
	state, depth, heads := bulkStart, 0, 0
	var cur bulkStmt
	var prev token
	ok = true
	fail := func() { ok = false }
	unterminated := lexEach(text, func(t token) {
		if !ok {
			return
		}
		w := text[t.start:t.end]
		op := byte(0)
		if t.kind == tokOp {
			op = w[0]
		}
		if state != bulkStart && cur.first == 0 {
			if heads++; heads > bulkHead {
				fail()
				return
			}
		}
		switch state {
		case bulkStart, bulkAfterRow:
			switch {
			case state == bulkAfterRow && op == ',':
				state = bulkRow
			case t.kind == tokSemicolon:
				if state == bulkAfterRow {
					stmts, state = append(stmts, cur), bulkStart
				}
			case t.kind == tokWord && eqFold(w, "INSERT"):
				if state == bulkAfterRow {
					stmts = append(stmts, cur)
				}
				cur, state, depth, heads = bulkStmt{start: t.start}, bulkInHead, 0, 1
			default:
				fail()
			}
		case bulkInHead:
			switch {
			case t.kind == tokSemicolon || runsWord(t, w):
				fail()
			case op == '(':
				depth++
			case op == ')':
				depth--
			case t.kind == tokWord && depth == 0 && eqFold(w, "VALUES"):
				if prev.kind == tokWord && eqFold(text[prev.start:prev.end], "DEFAULT") {
					fail()
				}
				state = bulkRow
			}
		case bulkRow:
			if op != '(' {
				fail()
			}
			state = bulkValue
		case bulkValue:
			switch {
			case op == '-' || op == '+':
				state = bulkSigned
			case literal(t, w):
				state = bulkAfter
			default:
				fail()
			}
		case bulkSigned:
			if t.kind != tokNumber {
				fail()
			}
			state = bulkAfter
		case bulkAfter:
			switch op {
			case ',':
				state = bulkValue
			case ')':
				cur.end = t.end
				if cur.first == 0 {
					cur.first = t.end
				}
				state = bulkAfterRow
			default:
				fail()
			}
		}
		prev = t
	})
	switch {
	case !ok || unterminated || (state != bulkStart && state != bulkAfterRow):
		return nil, false
	case state == bulkAfterRow:
		stmts = append(stmts, cur)
	}
	return stmts, len(stmts) > 0
}

// literal reports whether t is a literal that adds nothing to an analysis:
// a plain number, a string, NULL or a 0x… binary.
func literal(t token, w string) bool {
	switch t.kind {
	case tokNumber, tokString:
		return true
	case tokWord:
		if eqFold(w, "NULL") {
			return true
		}
		if len(w) < 2 || w[0] != '0' || (w[1] != 'x' && w[1] != 'X') {
			return false
		}
		for i := 2; i < len(w); i++ {
			if c := w[i] | 0x20; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
		return true
	}
	return false
}

// runsWord reports whether a word or quoted name of a head may run a text
// (EXEC, EXECUTE, sp_executesql and the other procedures dynamic.go reads
// or refuses).
func runsWord(t token, w string) bool {
	if t.kind != tokWord && t.kind != tokQuoted {
		return false
	}
	w = unquoteName(w)
	return eqFold(w, "EXEC") || eqFold(w, "EXECUTE") || runsText(strings.ToLower(w))
}

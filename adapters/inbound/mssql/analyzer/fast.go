package analyzer

import (
	"context"
	"reflect"
	"slices"
	"strings"

	"github.com/sqlc-dev/teesql/ast"
	"github.com/sqlc-dev/teesql/parser"
)

// The fast path reads the texts agents send most (SELECT, INSERT, UPDATE,
// DELETE, with DECLARE, SET, IF and BEGIN … END around them) with
// github.com/sqlc-dev/teesql, a hand-written T-SQL parser that costs well
// under a millisecond for a 2 KB batch it has never seen, where the ANTLR
// grammar costs tens of milliseconds on first sight (docs/mssql-listener.md,
// "Cost"). Every other text, and every text the fast path is not sure of,
// goes to the grammar (analyze), which stays the authority.
//
// A text takes the fast path only when all of these hold:
//   - it is closed (no string, name or comment left open), holds
//     characters outside ASCII only in strings and comments, teesql's
//     lexer reads the tokens lex reads and skips what lex skips
//     (sameTokens: teesql does not nest /* */ comments, ends a -- comment
//     at LF only, skips control bytes), and it names none of slowWords
//     outside strings, names and comments (as
//     lex, which reads SQL Server's nested comments, splits it): the
//     statements whose analysis needs the session's state (USE,
//     transactions, XACT_ABORT), dynamic SQL, and every statement kind the
//     fast path does not read;
//   - teesql parses it, and every node of the tree is of a type in
//     fastNodes (no EXEC, no rowset function, no DDL, …);
//   - every token of the text lies inside one statement teesql found, and
//     each SELECT, INSERT, UPDATE and DELETE keyword lies inside a
//     statement whose analysis has that action: a keyword teesql read past
//     (a lenient option list) sends the text to the grammar;
//   - the tree holds as many INTO, ORDER BY and OFFSET clauses as the text
//     has INTO, ORDER and OFFSET keywords: teesql drops some it parsed
//     (SELECT … INTO in a subquery, the ORDER BY of a parenthesized
//     query, the OFFSET of a UNION) with the names inside them;
//   - each FROM clause's tokens are FROM and its table references (fromShape):
//     teesql drops a table reference it fails to parse and goes on;
//   - no parenthesis, SELECT or FROM inside an OPTION ( … ) list (nestedOption):
//     teesql skips the tokens there it does not read.
//
// TestFastPathAgrees checks the two paths give the same Result on every
// text of the analyzer's tests and warm corpora that the fast path takes,
// and FuzzFastPath on what the fuzzer makes.

// fastMax is the longest text the fast path reads, in bytes; a longer one
// is rare from an agent and goes to the grammar.
const fastMax = 16 << 10

// slowWords are the words (upper case) that send a text to the grammar.
var slowWords = setOf(
	// Statements whose analysis needs the session or the grammar's reading.
	"USE", "TRAN", "TRANSACTION", "COMMIT", "ROLLBACK", "SAVE", "XACT_ABORT", "GO",
	"EXEC", "EXECUTE", "SP_EXECUTESQL", "SP_PREPARE", "SP_PREPEXEC", "SP_SQLEXEC",
	"OPENQUERY", "OPENROWSET", "OPENDATASOURCE", "OPENXML", "OPENJSON",
	// Statement kinds the fast path does not read.
	"MERGE", "DROP", "TRUNCATE", "ALTER", "CREATE", "GRANT", "REVOKE", "DENY", "REVERT", "BULK", "SHUTDOWN",
	"DBCC", "KILL", "BACKUP", "RESTORE", "RECONFIGURE", "CHECKPOINT", "WAITFOR", "GOTO", "RETURN", "BREAK",
	"CONTINUE", "TRY", "CATCH", "THROW", "RAISERROR", "PRINT", "CURSOR", "OPEN", "CLOSE",
	"DEALLOCATE", "READTEXT", "WRITETEXT", "UPDATETEXT", "SETUSER", "ENABLE", "DISABLE", "LOCK", "RECEIVE",
	"SEND", "CONVERSATION", "DIALOG", "MOVE", "GET", "ADD", "DISTRIBUTED", "STATISTICS", "OUTPUT",
	// FOR XML, FOR JSON, FOR BROWSE, FOR SYSTEM_TIME, NEXT VALUE FOR: none
	// is read, and teesql drops the FOR clause of a parenthesized query or
	// a UNION from its tree rather than refusing it.
	"FOR",
)

// verbs are the keywords whose statement must carry the action of their name.
var verbs = setOf("SELECT", "INSERT", "UPDATE", "DELETE")

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// fastAnalyze is Analyze on the fast path for a text of database db (lower
// case), as lex read it; ok is false when the text must go to the grammar.
func fastAnalyze(text, db string, l lexed) (r Result, ok bool) {
	if len(text) > fastMax || l.unterminated || len(l.toks) == 0 {
		return Result{}, false
	}
	var offs []int
	if !isASCII(text) {
		if offs, ok = stringsOnly(text, l.toks); !ok {
			return Result{}, false
		}
	}
	if !sameTokens(text, l.toks) {
		return Result{}, false
	}
	words, ok := scanWords(text, l.toks)
	if !ok || nestedOption(text, l.toks) {
		return Result{}, false
	}
	stmts, ok := parseFast(text)
	if !ok {
		return Result{}, false
	}
	spans := make([][2]int, len(stmts))
	into, order, offset := 0, 0, 0
	for i, s := range stmts {
		w := newWalker(nil, []string{db}, 0)
		fw := &fastWalker{w: w, text: text, toks: l.toks, offs: offs}
		if !fw.node(reflect.ValueOf(s)) {
			return Result{}, false
		}
		start, end, ok := fw.span(s.(interface{ Frag() *ast.Fragment }).Frag())
		if !ok || (i > 0 && start < spans[i-1][1]) {
			return Result{}, false
		}
		spans[i] = [2]int{start, end}
		into += fw.into
		order += fw.order
		offset += fw.offset
		st := w.statement()
		st.Text = trimStatement(text[start:end])
		r.Statements = append(r.Statements, st)
	}
	if !covered(text, l.toks, spans, r.Statements) || into != words.into || order != words.order || offset != words.offset {
		return Result{}, false
	}
	if len(r.Statements) == 1 {
		r.Statements[0].Text = trimStatement(text)
	}
	return r, true
}

// parseFast parses text with teesql and returns its statements; ok is false
// when teesql refuses the text, or fails on it.
func parseFast(text string) (stmts []ast.Statement, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			stmts, ok = nil, false
		}
	}()
	script, err := parser.Parse(context.Background(), strings.NewReader(text))
	if err != nil || script == nil {
		return nil, false
	}
	for _, b := range script.Batches {
		if b == nil {
			return nil, false
		}
		stmts = append(stmts, b.Statements...)
	}
	return stmts, len(stmts) > 0
}

// covered reports whether every token other than ";" lies inside one of
// spans, and every verb keyword inside a statement with its action.
func covered(text string, toks []token, spans [][2]int, stmts []Statement) bool {
	k := 0
	for _, t := range toks {
		for k < len(spans) && spans[k][1] <= t.start {
			k++
		}
		in := k < len(spans) && spans[k][0] <= t.start && t.end <= spans[k][1]
		if t.kind == tokSemicolon {
			continue
		}
		if !in {
			return false
		}
		if t.kind == tokWord {
			if w := strings.ToUpper(text[t.start:t.end]); verbs[w] && !slices.Contains(stmts[k].Analysis.Actions, w) {
				return false
			}
		}
	}
	return true
}

// wordCounts are the clause keywords of a text, as lex reads it.
type wordCounts struct{ into, order, offset int }

// scanWords counts the text's INTO, ORDER and OFFSET keywords in one pass
// over its tokens; ok is false when it names one of slowWords.
func scanWords(text string, toks []token) (c wordCounts, ok bool) {
	for _, t := range toks {
		if t.kind != tokWord {
			continue
		}
		switch w := text[t.start:t.end]; {
		case eqFold(w, "INTO"):
			c.into++
		case eqFold(w, "ORDER"):
			c.order++
		case eqFold(w, "OFFSET"):
			c.offset++
		case slowWords[strings.ToUpper(w)]:
			return c, false
		}
	}
	return c, true
}

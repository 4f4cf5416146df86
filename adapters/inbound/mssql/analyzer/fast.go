package analyzer

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

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
	for _, t := range l.toks {
		if t.kind == tokWord && slowWords[strings.ToUpper(text[t.start:t.end])] {
			return Result{}, false
		}
	}
	if nestedOption(text, l.toks) {
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
	if !covered(text, l.toks, spans, r.Statements) || into != countWord(text, l.toks, "INTO") ||
		order != countWord(text, l.toks, "ORDER") || offset != countWord(text, l.toks, "OFFSET") {
		return Result{}, false
	}
	if len(r.Statements) == 1 {
		r.Statements[0].Text = trimStatement(text)
	}
	return r, true
}

// stringsOnly reports whether every character outside ASCII of a valid
// UTF-8 text is inside a string literal or a comment ('Müller', N'東京'):
// there it changes nothing the analysis reads. Elsewhere (a name, a space
// SQL Server may read otherwise) the text goes to the grammar. offs maps
// each UTF-16 code unit offset, as teesql's spans count them, to the byte
// offset of its character.
func stringsOnly(text string, toks []token) (offs []int, ok bool) {
	if !utf8.ValidString(text) {
		return nil, false
	}
	for _, t := range toks {
		if t.kind != tokString && !isASCII(text[t.start:t.end]) {
			return nil, false
		}
	}
	offs = make([]int, 0, len(text)+1)
	for i, r := range text {
		offs = append(offs, i)
		if r > 0xFFFF { // two code units
			offs = append(offs, i)
		}
	}
	return append(offs, len(text)), true
}

// nestedOption reports whether a parenthesis opens, or a SELECT or FROM
// stands, inside an OPTION ( … ) list. teesql skips each token of the list
// it does not read as a hint's (OPTION (SELECT 1 FROM secret) is the hint
// "secret"), and the hints the fast path reads take no parentheses (TABLE
// HINT, USE HINT and OPTIMIZE FOR, which do, are not read) and no query.
func nestedOption(text string, toks []token) bool {
	for k := 0; k+1 < len(toks); k++ {
		t := toks[k]
		if t.kind != tokWord || !strings.EqualFold(text[t.start:t.end], "OPTION") || text[toks[k+1].start:toks[k+1].end] != "(" {
			continue
		}
		for j := k + 2; j < len(toks); j++ {
			switch strings.ToUpper(text[toks[j].start:toks[j].end]) {
			case "(", "SELECT", "FROM":
				return true
			case ")":
				j = len(toks)
			}
		}
	}
	return false
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
			if w := strings.ToUpper(text[t.start:t.end]); verbs[w] && !has(stmts[k].Analysis.Actions, w) {
				return false
			}
		}
	}
	return true
}

func has(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// fastWalker adds what a teesql tree says to a walker (classify.go), with
// the names read from the text as the grammar path reads them.
type fastWalker struct {
	w    *walker
	text string
	toks []token
	offs []int // UTF-16 offset → byte offset; nil for an ASCII text
	// into counts the INTO keywords the tree holds (SELECT … INTO t,
	// INSERT INTO t): teesql drops an INTO where SQL Server refuses one
	// (in a subquery), and the fast path leaves any text where the count
	// is not lex's to the grammar.
	into int
	// order and offset count the ORDER BY and OFFSET clauses the tree
	// holds: teesql parses the ORDER BY of a parenthesized query ((SELECT
	// a FROM t) ORDER BY dbo.f(a)) and the OFFSET … FETCH of one or of a
	// UNION, then drops them from the tree, and the subqueries and
	// functions in them with them.
	order, offset int
}

// countWord counts the tokens of text that are word (upper case).
func countWord(text string, toks []token, word string) int {
	n := 0
	for _, t := range toks {
		if t.kind == tokWord && t.end-t.start == len(word) && strings.EqualFold(text[t.start:t.end], word) {
			n++
		}
	}
	return n
}

// span returns the byte range of a node's span; ok is false when it has
// none or it lies outside the text.
func (f *fastWalker) span(fr *ast.Fragment) (start, end int, ok bool) {
	if !fr.HasSpan() {
		return 0, 0, false
	}
	return f.byteRange(fr.StartOffset, fr.EndOffset())
}

// byteRange converts a range of UTF-16 offsets to bytes.
func (f *fastWalker) byteRange(u16Start, u16End int) (start, end int, ok bool) {
	if u16Start < 0 || u16End < u16Start {
		return 0, 0, false
	}
	if f.offs == nil {
		return u16Start, u16End, u16End <= len(f.text)
	}
	if u16End >= len(f.offs) {
		return 0, 0, false
	}
	return f.offs[u16Start], f.offs[u16End], true
}

// node walks v (an AST node, a slice or an interface holding them) and
// reports false on a node outside the fast path.
func (f *fastWalker) node(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return true
		}
		if v.Kind() == reflect.Interface {
			return f.node(v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if !f.node(v.Index(i)) {
				return false
			}
		}
		return true
	default:
		return true // a field of a basic type
	}
	n := v.Interface()
	acts, known := fastNodes[v.Type()]
	if !known {
		return false
	}
	f.w.act(acts...)
	switch x := n.(type) {
	case *ast.SchemaObjectName:
		return f.object(&x.Fragment)
	case *ast.ColumnReferenceExpression:
		return true // t.col, t.*: t is an alias or a table named elsewhere
	case *ast.SqlDataTypeReference:
		return f.node(reflect.ValueOf(x.Parameters)) // its name is a type's: int, nvarchar
	case *ast.SelectStatement:
		if x.Into != nil {
			f.w.act("SELECT_INTO", "CREATE", "CREATE_TABLE")
			f.into++
		}
		if x.On != nil {
			return false
		}
	case *ast.FromClause:
		if !f.fromShape(x) {
			return false
		}
	case *ast.OrderByClause:
		f.order++
	case *ast.OffsetClause:
		f.offset++
		if !f.offsetShape(x) {
			return false
		}
	case *ast.InsertSpecification:
		if x.InsertOption == "Into" {
			f.into++
		}
	case *ast.FunctionCall:
		if !f.function(x) {
			return false
		}
	}
	e := v.Elem()
	for i := 0; i < e.NumField(); i++ {
		if e.Type().Field(i).Anonymous || !e.Type().Field(i).IsExported() {
			continue // Fragment: the span
		}
		if !f.node(e.Field(i)) {
			return false
		}
	}
	return true
}

// fromShape reports whether the tokens of a FROM clause are FROM and its
// table references, separated by commas. teesql's FROM clause is lenient:
// when a table reference fails to parse it keeps the references before it
// and drops the tokens it read (SELECT * FROM secret AS, FROM t AS x JOIN
// (SELECT … FROM secret)), the tables and subqueries among them with them.
func (f *fastWalker) fromShape(c *ast.FromClause) bool {
	start, end, ok := f.span(&c.Fragment)
	if !ok || len(c.TableReferences) == 0 {
		return false
	}
	k := sort.Search(len(f.toks), func(k int) bool { return f.toks[k].start >= start })
	if k >= len(f.toks) || f.toks[k].kind != tokWord || !strings.EqualFold(f.text[f.toks[k].start:f.toks[k].end], "FROM") {
		return false
	}
	k++
	for i, r := range c.TableReferences {
		if i > 0 {
			if k >= len(f.toks) || f.text[f.toks[k].start:f.toks[k].end] != "," {
				return false
			}
			k++
		}
		s, ok := r.(interface{ Frag() *ast.Fragment })
		if !ok {
			return false
		}
		rs, re, ok := f.span(s.Frag())
		if !ok || k >= len(f.toks) || f.toks[k].start != rs {
			return false
		}
		for k < len(f.toks) && f.toks[k].end <= re {
			k++
		}
		if f.toks[k-1].end != re {
			return false
		}
	}
	return k == len(f.toks) || f.toks[k].start >= end
}

// offsetShape reports whether the tokens of an OFFSET clause are SQL
// Server's: OFFSET n ROW[S] [FETCH FIRST|NEXT m ROW[S] ONLY]. teesql takes
// each keyword but OFFSET and FETCH as optional, and reads into the clause
// what the grammar reads as the next statement (… OFFSET 1 ROWS FETCH c: a
// cursor's FETCH).
func (f *fastWalker) offsetShape(c *ast.OffsetClause) bool {
	start, end, ok := f.span(&c.Fragment)
	if !ok || c.OffsetExpression == nil {
		return false
	}
	k := sort.Search(len(f.toks), func(k int) bool { return f.toks[k].start >= start })
	word := func(words ...string) bool {
		if k >= len(f.toks) || f.toks[k].end > end || f.toks[k].kind != tokWord {
			return false
		}
		for _, w := range words {
			if strings.EqualFold(f.text[f.toks[k].start:f.toks[k].end], w) {
				k++
				return true
			}
		}
		return false
	}
	expr := func(e ast.ScalarExpression) bool {
		s, ok := e.(interface{ Frag() *ast.Fragment })
		if !ok {
			return false
		}
		es, ee, ok := f.span(s.Frag())
		if !ok || k >= len(f.toks) || f.toks[k].start != es {
			return false
		}
		for k < len(f.toks) && f.toks[k].end <= ee {
			k++
		}
		return f.toks[k-1].end == ee
	}
	if !word("OFFSET") || !expr(c.OffsetExpression) || !word("ROW", "ROWS") {
		return false
	}
	if c.FetchExpression != nil && (!word("FETCH") || !word("FIRST", "NEXT") || !expr(c.FetchExpression) ||
		!word("ROW", "ROWS") || !word("ONLY")) {
		return false
	}
	return k == len(f.toks) || f.toks[k].start >= end
}

// object adds the schema object named by the text of span.
func (f *fastWalker) object(span *ast.Fragment) bool {
	start, end, ok := f.span(span)
	if !ok {
		return false
	}
	name, ok := f.spanText(start, end)
	if !ok {
		return false
	}
	parts := splitParts(name)
	if parts[len(parts)-1] == "" {
		return false // dbo.t. : SQL Server refuses it, the grammar holds it
	}
	f.w.object(parts)
	return true
}

// function adds a called function: one named with a schema (dbo.f), or one
// by its name alone that is not among the grammar's built-in functions.
func (f *fastWalker) function(c *ast.FunctionCall) bool {
	if c.FunctionName == nil {
		return false
	}
	// The call target (dbo. of dbo.f) has no span of its own: the name is
	// the call's text up to the end of the function's name.
	if !c.HasSpan() || !c.FunctionName.HasSpan() {
		return false
	}
	start, end, ok := f.byteRange(c.StartOffset, c.FunctionName.EndOffset())
	if !ok {
		return false
	}
	name, ok := f.spanText(start, end)
	if !ok {
		return false
	}
	parts := splitParts(name)
	switch t := c.CallTarget.(type) {
	case nil:
		if len(parts) != 1 {
			return false
		}
		if !builtinFunctions[parts[0]] {
			f.w.function(parts)
		}
		return true
	case *ast.MultiPartIdentifierCallTarget:
		if t.MultiPartIdentifier == nil || len(parts) != len(t.MultiPartIdentifier.Identifiers)+1 {
			return false
		}
		f.w.function(parts)
		return true
	}
	return false
}

// spanText returns the text of the tokens (as lex reads them) from byte
// start to end, joined without the spaces and comments between them, as
// the grammar path joins a name's tokens (walker.parts). ok is false for an
// empty range, or one that ends inside a token.
func (f *fastWalker) spanText(start, end int) (string, bool) {
	if start < 0 || end > len(f.text) || start >= end {
		return "", false
	}
	var b strings.Builder
	for k := sort.Search(len(f.toks), func(k int) bool { return f.toks[k].start >= start }); k < len(f.toks) && f.toks[k].start < end; k++ {
		t := f.toks[k]
		if t.end > end {
			return "", false
		}
		b.WriteString(f.text[t.start:t.end])
	}
	return b.String(), b.Len() > 0
}

// sameTokens reports whether teesql's lexer reads text as lex does: each
// of its tokens is one of lex's, or several lex reads side by side (<>,
// a@b), and it skips nothing lex reads and reads nothing lex skips. Where
// they differ, teesql reads as code what SQL Server reads as a comment
// (it does not nest /* */: /* /* */ SELECT ' */ … --'; its money literal
// takes the - of "$--"), or as space what SQL Server reads (-- x CR …
// it ends at LF only; a control byte), and a name or a statement the
// server runs would not be in the analysis.
func sameTokens(text string, toks []token) (same bool) {
	defer func() {
		if p := recover(); p != nil {
			same = false
		}
	}()
	lx := parser.NewLexer(text)
	k := 0
	for {
		t := lx.NextToken()
		if t.Type == parser.TokenEOF {
			return k == len(toks) // NUL is teesql's end of text
		}
		end := t.Pos + len(t.Literal)
		if k == len(toks) || toks[k].start != t.Pos {
			return false
		}
		for toks[k].end < end && k+1 < len(toks) && toks[k+1].start == toks[k].end {
			k++
		}
		if toks[k].end != end {
			return false
		}
		k++
	}
}

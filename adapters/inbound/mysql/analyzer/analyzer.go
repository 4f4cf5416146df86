package analyzer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // value expressions (literals) for the parser

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Statement is the analysis of one SQL statement.
type Statement struct {
	// Text is the statement's own text within the analysed SQL (comments
	// and executable comments as sent), without the trailing semicolon.
	//
	// Analysis is what rules match: Actions (statement kinds, upper case),
	// Targets (db.table for tables, bare names for databases, users,
	// procedures) and Functions (called functions, lower case).
	analyzerkit.Statement
	// UseDB is the database a USE statement makes current (empty otherwise).
	UseDB string
	// Kill is set on KILL [QUERY | CONNECTION] <number>: the thread id as the
	// client wrote it. A KILL whose id is an expression leaves Kill nil.
	Kill *Kill
	// LoadLocal is set on LOAD DATA LOCAL INFILE / LOAD XML LOCAL INFILE: the
	// server will ask the client for the file.
	LoadLocal bool
	// Prepare is set on PREPARE name FROM '…': the name and the analysis of
	// the prepared text, which runs on EXECUTE name. PREPARE name FROM @var
	// sets Prepare with Analysis UNKNOWN.
	Prepare *Prepared
	// Execute is the name in EXECUTE name [USING …].
	Execute string
	// Deallocate is the name in DEALLOCATE / DROP PREPARE name.
	Deallocate string
	// change: what the statement does to how later text reads (reading.go).
	change readingChange
}

// Kill is a KILL statement's thread id and kind.
type Kill struct {
	// ID is the thread (connection) id the client wrote.
	ID uint64
	// QueryOnly is KILL QUERY: end the running statement, keep the connection.
	QueryOnly bool
}

// Prepared is a PREPARE's name and the analysis of its text.
type Prepared struct {
	Name     string
	Analysis domain.Analysis
}

// Result is the analysis of one SQL text (one COM_QUERY or COM_STMT_PREPARE).
type Result struct {
	// Statements has one entry per statement, in order. Empty for an empty
	// text (only comments, spaces or semicolons).
	Statements []Statement
	// Err is the parser's error; Statements then holds one entry whose only
	// action is Unknown. It wraps ErrUncheckable when the text is too large
	// or deep to analyse, or reads as different statements under another
	// sql_mode (see Mode): the caller must refuse such a text.
	Err error
	// Changes: a statement of the text sets the client character set or
	// the sql_mode (SET NAMES, SET CHARACTER SET, character_set_client,
	// sql_mode), or may (CALL, EXECUTE). Leaves is then the mode the whole
	// text leaves the session in when every statement runs, if LeavesKnown;
	// without LeavesKnown only the server can tell (the caller asks it).
	Changes, LeavesKnown bool
	Leaves               Mode
}

// Mode is the part of the session's sql_mode that changes how a text splits
// into tokens.
type Mode struct {
	// NoBackslashEscapes is NO_BACKSLASH_ESCAPES: a backslash in a string is
	// an ordinary character (the server reports it in its status flags,
	// SERVER_STATUS_NO_BACKSLASH_ESCAPES).
	NoBackslashEscapes bool
	// ANSIQuotes is ANSI_QUOTES: "…" quotes an identifier, not a string.
	ANSIQuotes bool
	// MultiByte: the client character set may be one whose characters can
	// end in a backslash or backtick byte (big5, cp932, gbk, gb18030, sjis).
	// A text with a byte 0x81–0xFE before a backslash or backtick is then
	// unreadable (Err set, action UNKNOWN): see errMultiByte. A Charset with
	// such characters, or one the analyzer does not know, implies it.
	MultiByte bool
	// Charset is the client character set (@@character_set_client, e.g.
	// latin1, cp1250, gbk); "" is utf8mb4. It decides which bytes outside a
	// literal are whitespace (charset.go); an unknown name makes every byte
	// 0x7F–0xFF outside a literal uncheckable.
	Charset string
	// PipesAsConcat, IgnoreSpace, HighNotPrecedence are the sql_mode flags
	// of those names: they change how the parser reads an expression, and
	// are passed to it.
	PipesAsConcat, IgnoreSpace, HighNotPrecedence bool
	// Unmodelled names a sql_mode that changes the grammar in a way the
	// analyzer does not follow (MariaDB's ORACLE, MSSQL, DB2, POSTGRESQL,
	// MAXDB, or a name it does not know): every text is uncheckable.
	Unmodelled string
	// Exact: the listener read the session's sql_mode from the server, so
	// only this mode's reading counts; without it a text holding a
	// backslash in a quoted token is also read under the other
	// NO_BACKSLASH_ESCAPES and ANSI_QUOTES settings (modes.go).
	Exact bool
}

// Analyze parses sql as MySQL and MariaDB read it by default and classifies
// each statement; unqualified tables name currentDB (empty: none current,
// targets then read as bare table names). It never fails: a text the parser
// refuses yields one Unknown statement and Err set. Texts whose statements
// would differ under NO_BACKSLASH_ESCAPES or ANSI_QUOTES are uncheckable;
// where they only differ inside one statement, both readings' kinds are
// reported.
func Analyze(sql, currentDB string) Result {
	return AnalyzeMode(sql, currentDB, Mode{})
}

// AnalyzeMode is Analyze for a session whose sql_mode is known to include
// the given modes.
func AnalyzeMode(sql, currentDB string, m Mode) Result {
	return AnalyzeModeContext(context.Background(), sql, currentDB, m)
}

// unknown is the result of a text that cannot be analysed: one statement
// with the whole text, UNKNOWN among its actions, and err. A text the parser
// refuses also carries the actions its first keywords suggest (guessed).
func unknown(sql string, err error) Result {
	actions := []string{domain.ActionUnknown}
	if !isUncheckable(err) {
		actions = guessed(sql)
	}
	st := analyzerkit.Whole(sql, actions)
	st.Analysis.Effects = unreadEffects(actions) // effects.go
	return Result{Statements: []Statement{{Statement: st}}, Err: err}
}

// parsers reuses TiDB parsers, which are not safe for concurrent use and
// cost a few KiB each to create.
var parsers = sync.Pool{New: func() any { return parser.New() }}

// parsed is one statement as the parser read it: its node and its byte
// range within the analysed text.
type parsed struct {
	node ast.StmtNode
	// start, end: without surrounding spaces, comments and semicolon, to
	// compare readings; raw, rawEnd: as the parser split the text.
	start, end, raw, rawEnd int
}

// parseText runs the parser on code (a text whose comments lexical.go has
// blanked out) in mode m.
//
// A panic in the parser (its test_driver panics on some decimal literals
// over 81 digits) is returned as an error, and that parser is not reused:
// one client's text must never end the process.
func parseText(code string, m Mode) (out []parsed, err error) {
	p := parsers.Get().(*parser.Parser)
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("the parser failed on this text: %v", r)
			return
		}
		parsers.Put(p)
	}()
	var mode mysql.SQLMode
	if m.NoBackslashEscapes {
		mode |= mysql.ModeNoBackslashEscapes
	}
	if m.ANSIQuotes {
		mode |= mysql.ModeANSIQuotes
	}
	if m.PipesAsConcat {
		mode |= mysql.ModePipesAsConcat
	}
	if m.IgnoreSpace {
		mode |= mysql.ModeIgnoreSpace
	}
	if m.HighNotPrecedence {
		mode |= mysql.ModeHighNotPrecedence
	}
	p.SetSQLMode(mode)
	p.SetMariaDB(true)
	stmts, _, err := p.ParseSQL(code)
	if err != nil {
		// The parser's errors carry a stack trace (pingcap/errors), which
		// slog prints with %+v: keep only the one-line message
		// ("line 1 column 5 near …") for the log and the client.
		return nil, errors.New(strings.TrimSpace(err.Error()))
	}
	out = make([]parsed, 0, len(stmts))
	for _, s := range stmts {
		raw, rawEnd := span(code, s.OriginalText())
		start, end := trimmed(code, raw, rawEnd)
		out = append(out, parsed{node: s, start: start, end: end, raw: raw, rawEnd: rawEnd})
	}
	return out, nil
}

// span returns the byte range of text, a substring of code the parser
// handed back.
func span(code, text string) (int, int) {
	start := int(uintptr(unsafe.Pointer(unsafe.StringData(text))) - uintptr(unsafe.Pointer(unsafe.StringData(code))))
	if len(text) == 0 || start < 0 || start+len(text) > len(code) {
		return 0, len(code)
	}
	return start, start + len(text)
}

// trimmed narrows s[start:end] by the spaces and semicolons around it.
func trimmed(s string, start, end int) (int, int) {
	for start < end && (isSpace(s[start]) || s[start] == ';') {
		start++
	}
	for end > start && (isSpace(s[end-1]) || s[end-1] == ';') {
		end--
	}
	return start, end
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func analyze(sql, db string, m Mode, nest int) Result {
	if m.Unmodelled != "" {
		return unknown(sql, fmt.Errorf("%w: the session's sql_mode has %s, which changes how the server reads SQL in a way the Sidecar does not follow", ErrUncheckable, m.Unmodelled))
	}
	if m.multiByte() && multiByteAmbiguous(sql) {
		return unknown(sql, errMultiByte)
	}
	if len(sql) > MaxSize {
		return analyzeLarge(sql, db, m) // bulk.go
	}
	l := lex(sql, m)
	if r, ok := analyzeRoutine(sql, db, m, nest, l); ok {
		return r // routine.go: a stored program is decided by its head
	}
	// A cut at the end of the text would read the same text again (the head
	// of an unreadable rest is the whole text): only a shorter head splits.
	if cut := splitReading(sql, l); cut > 0 && cut < len(sql) {
		// The server reads each statement in the state the ones before it
		// leave: read the rest again after the change.
		if !m.Exact && l.backslashInQuote {
			return unknown(sql, fmt.Errorf("%w: a statement changes the character set or sql_mode, and the text may split elsewhere under another sql_mode", ErrUncheckable))
		}
		return analyzeSplit(sql, db, m, nest, cut)
	}
	if l.err != nil {
		return unknown(sql, l.err)
	}
	if err := checkDepth(l.toks, sql); err != nil {
		return unknown(sql, err)
	}
	stmts, err := parseText(l.code, m)
	if err != nil {
		if r, ok := unknownNames(sql, l.toks, m); ok {
			return r // reading.go: the server says whether it knows the set
		}
		return unknown(sql, err)
	}
	if err := sameSplit(l.toks, stmts); err != nil {
		return unknown(sql, err)
	}
	if err := compoundSkippable(l, stmts); err != nil {
		return unknown(sql, err)
	}
	out := Result{Statements: make([]Statement, 0, len(stmts))}
	for _, p := range stmts {
		st, err := classifyStmt(p.node, db, m, nest)
		if err != nil {
			return unknown(sql, err)
		}
		addTokenEffects(&st, sql, l.toks, p, m) // lexeffects.go
		st.Text = sql[p.start:p.end]
		if a, b := trimmed(sql, p.raw, p.rawEnd); a <= p.start && b >= p.end {
			st.Text = sql[a:b] // as sent: with the comments around it
		}
		out.Statements = append(out.Statements, st)
	}
	if len(l.conds) > 0 { // skipped.go: what servers that skip a comment run
		if err := addSkippedReadings(db, m, nest, l, stmts, out.Statements); err != nil {
			return unknown(sql, err)
		}
	}
	if l.backslashInQuote && !m.Exact {
		if err := otherModes(sql, db, m, nest, stmts, out.Statements); err != nil {
			return unknown(sql, err)
		}
	}
	out.leaves(m)
	return out
}

// multiByte reports whether texts must be read as in a character set whose
// characters may end in an ASCII byte (errMultiByte).
func (m Mode) multiByte() bool {
	cs := charsetOf(m.Charset)
	return m.MultiByte || cs.asciiTrail || !cs.known
}

// maxNesting bounds how deep PREPARE … FROM '…' texts are analysed inside
// one another (each level is a shorter string literal; this bounds the work
// a crafted text can ask for).
const maxNesting = 8

var errNested = fmt.Errorf("%w: PREPARE texts nested more than %d deep", ErrUncheckable, maxNesting)

func isUncheckable(err error) bool { return errors.Is(err, ErrUncheckable) }

// sameSplit checks the parser's statements against the lexer's: every
// statement the lexer finds (split at semicolons outside strings, quoted
// names and comments, as the server's lexer splits) must start one of the
// parser's, unless it lies inside a stored-program body (CREATE PROCEDURE …
// BEGIN …; …; END). The two lexers implement the same rules; should they
// ever disagree about where a string ends, the server could run a
// statement the analysis never saw, so the text is uncheckable instead.
func sameSplit(toks []token, stmts []parsed) error {
	i := 0
	for k := 0; k < len(toks); k++ {
		if toks[k].kind == tokSemicolon || (k > 0 && toks[k-1].kind != tokSemicolon) {
			continue
		}
		start := toks[k].start
		for i+1 < len(stmts) && stmts[i+1].start <= start {
			i++
		}
		if i < len(stmts) && stmts[i].start == start {
			continue
		}
		if i < len(stmts) && stmts[i].start < start && isCompound(stmts[i].node) {
			continue
		}
		return fmt.Errorf("%w at byte %d", errSplit, start)
	}
	return nil
}

// errSplit is sameSplit's error; the fuzz target checks it never happens.
var errSplit = fmt.Errorf("%w: the parser and the lexer split the text into statements differently", ErrUncheckable)

// compoundSkippable refuses a stored program the parser read (its body
// not analysed) that holds a versioned executable comment: a server that
// skips it may end the body elsewhere, and run what the parser read as
// body (routine.go reads the bodies it can with every server's reading).
func compoundSkippable(l lexed, stmts []parsed) error {
	for _, p := range stmts {
		if !isCompound(p.node) {
			continue
		}
		for _, c := range l.conds {
			if c.start < p.rawEnd && c.end > p.raw {
				return errSkippedBody
			}
		}
	}
	return nil
}

// isCompound reports statements whose body may hold semicolons.
func isCompound(n ast.StmtNode) bool {
	_, ok := n.(*ast.ProcedureInfo)
	return ok
}

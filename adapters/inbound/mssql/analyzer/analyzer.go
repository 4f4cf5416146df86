package analyzer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/antlr4-go/antlr/v4"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Statement is the analysis of one T-SQL statement of a batch.
type Statement struct {
	// Text is the statement's own text within the analysed batch, without
	// surrounding spaces and closing semicolons. For a batch of one
	// statement it is the whole text so trimmed (comments included).
	//
	// Analysis is what rules match: Actions (statement kinds, upper case),
	// Targets (names, lower case: see docs/mssql-listener.md, "Analyzer") and
	// Functions (called user functions and rowset functions, lower case).
	// A control-of-flow statement (IF, WHILE, BEGIN … END, TRY … CATCH)
	// carries the analysis of every statement inside it.
	analyzerkit.Statement
	// UseDB is the database a top-level USE statement makes current (lower
	// case; empty otherwise). Unqualified names of the statements after it
	// in the same batch read in that database.
	UseDB string
	// Transaction is a top-level transaction statement's kind: "BEGIN"
	// (BEGIN [DISTRIBUTED] TRAN), "COMMIT", "ROLLBACK" or "SAVEPOINT" (SAVE
	// TRAN). Empty otherwise, and for one inside IF or BEGIN … END.
	Transaction string
	// XactAbort is set by a top-level SET XACT_ABORT ON (true) or OFF.
	XactAbort *bool
}

// Result is the analysis of one SQL text (a SQLBatch, or the statement text
// of an sp_executesql / sp_prepare RPC).
type Result struct {
	// Statements has one entry per statement, in order. Empty for an empty
	// text (only comments, spaces, semicolons or GO).
	Statements []Statement
	// Err is set when the text cannot be analysed; Statements then holds one
	// entry with the whole text whose actions include Unknown (and, for a
	// syntax error, the kinds its keywords name). It wraps ErrUncheckable
	// when the text is too large or deep to analyse. The caller holds such a
	// text (fail closed).
	Err error
}

// Analyze parses text (one batch, or several separated by GO lines) as SQL
// Server reads it and classifies each statement; unqualified names read in
// currentDB (the session's database; empty: none known) and schema dbo. It
// never fails: a text the grammar refuses yields one statement with Unknown
// and Err set. Literal dynamic SQL (EXEC ('…' + N'…'), EXEC sp_executesql
// N'…') is analysed as the statements it holds; dynamic SQL in a variable is
// Unknown. It costs a parse each time (under a millisecond for a 2 KB DML
// batch on the fast path, tens of milliseconds for a shape the grammar has
// never seen): listeners use a Cache, and call Warm at start.
func Analyze(text, currentDB string) Result {
	return AnalyzeContext(context.Background(), text, currentDB)
}

// AnalyzeContext is Analyze for a client whose leaving ends ctx: a large
// text waiting for its turn to be parsed (budget, analyzerkit.ParseTrees)
// then stops waiting, and its result wraps ErrUncheckable; one whose
// estimated parse memory alone is over analyzerkit.ParseTrees is
// uncheckable at once, unless the bulk reader reads it (parsecost.go). A panic while analysing (classifying a
// tree the parser built oddly) yields Unknown and Err saying so.
func AnalyzeContext(ctx context.Context, text, currentDB string) Result {
	return analyzerkit.Analyze(ctx, budget, text, testHook, func() Result { return analyzeBounded(ctx, text, strings.ToLower(currentDB)) },
		func(err error) Result { return unknown(text, err) })
}

// testHook, when set (by tests only), runs before each analysis.
var testHook func(text string)

// unknown is the result of a text that cannot be analysed: one statement
// with the whole text, Unknown among its actions, and err. A text the
// parser refuses also carries the actions its keywords suggest (guess.go).
func unknown(text string, err error) Result {
	actions := []string{domain.ActionUnknown}
	effects := []string{domain.EffectUnknown}
	if !isUncheckable(err) {
		actions = guessed(text)
		effects = guessedEffects(text, actions)
	}
	st := Statement{Statement: analyzerkit.Whole(text, actions)}
	st.Analysis.Effects = effects
	return Result{Statements: []Statement{st}, Err: err}
}

func isUncheckable(err error) bool { return errors.Is(err, ErrUncheckable) }

// maxNesting bounds how deep dynamic SQL (EXEC ('…'), sp_executesql N'…')
// is analysed inside itself; each level is a shorter literal.
const maxNesting = 8

var errNested = fmt.Errorf("%w: dynamic SQL nested more than %d deep", ErrUncheckable, maxNesting)

func analyze(text, db string, nest int) Result {
	if err := checkLimits(text); err != nil {
		return unknown(text, err)
	}
	l := lex(text)
	if unicodeSpace(text, l.toks) {
		return unknown(text, errUnicodeSpace)
	}
	if err := checkDepth(l.toks, text); err != nil {
		return unknown(text, err)
	}
	if r, ok := fastAnalyze(text, db, l); ok {
		return r
	}
	return analyzeGrammar(text, db, nest)
}

// analyzeGrammar is analyze with the T-SQL grammar, for a text within the
// limits.
func analyzeGrammar(text, db string, nest int) Result {
	p, err := parseText(text)
	if err != nil {
		return unknown(text, err)
	}
	out := Result{}
	dbs := []string{db}
	var stmts []antlr.ParserRuleContext
	for _, batch := range p.tree.AllBatch_without_go() {
		for _, c := range batch.GetChildren() {
			switch v := c.(type) {
			case *sqlClausesCtx:
				if s, ok := v.GetChild(0).(antlr.ParserRuleContext); ok {
					stmts = append(stmts, s)
				}
			case antlr.ParserRuleContext:
				stmts = append(stmts, v)
			}
		}
	}
	for _, s := range stmts {
		w := newWalker(p, dbs, nest)
		w.top(s)
		if w.err != nil {
			return unknown(text, w.err)
		}
		st := w.statement()
		st.Text = trimStatement(text[p.byteAt(s.GetStart().GetStart()):p.byteAt(s.GetStop().GetStop()+1)])
		if st.UseDB != "" {
			dbs = []string{st.UseDB}
		} else if w.nestedUse != "" {
			dbs = append(dbs, w.nestedUse)
		}
		out.Statements = append(out.Statements, st)
	}
	if len(out.Statements) == 1 {
		out.Statements[0].Text = trimStatement(text)
	}
	return out
}

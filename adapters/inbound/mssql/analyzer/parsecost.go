package analyzer

import (
	"context"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// The ANTLR grammar's tree costs memory per token, not per byte: a
// 4 MiB multi-row INSERT of one-number rows (4 Mi tokens) allocates about
// 3.5 GiB while parsed, one of a few long strings next to nothing. A large
// text is therefore read by the bulk reader when it can (bulk.go: linear,
// no tree), and otherwise parsed only within analyzerkit.ParseTrees, the
// budget of estimated tree bytes that every connection of the MySQL and
// SQL Server listeners shares.

// TokenCost is the estimate, in bytes, of the memory analysing a text
// allocates per token: measured 780–900 on multi-row INSERTs of small
// values, the grammar's prediction cache warm (lexing, parsing and
// classifying; go test -run ParseCostCoversTheParser -v
// ./adapters/inbound/mssql/analyzer/).
const TokenCost = 1024

// analyzeBounded is analyze (database db, lower case) for a client whose
// leaving ends ctx. A text past the fast path (fastMax) that the bulk
// reader reads is not parsed; another large one (analyzerkit.LargeText
// and more) takes its estimate of parse memory (TokenCost per token,
// counting the tokens of its string literals too where it may run one as
// SQL) from analyzerkit.ParseTrees, waiting for it until ctx ends, or is
// uncheckable when the estimate is over the whole budget.
func analyzeBounded(ctx context.Context, text, db string) Result {
	if len(text) <= fastMax || len(text) > MaxSize {
		return analyze(text, db, 0) // the fast path's, or never parsed
	}
	if err := checkLimits(text); err != nil {
		return unknown(text, err)
	}
	// Past the fast path a text goes to the grammar, so the bulk reader
	// gives the same result: it spares texts under LargeText a tree too.
	if r, ok := readBulk(text, db); ok {
		return r
	}
	if len(text) < analyzerkit.LargeText {
		return analyze(text, db, 0) // small: parsed without waiting
	}
	return analyzerkit.Parse(ctx, analyzerkit.ParseTrees, countTokens(text, 0), TokenCost,
		"a multi-row INSERT of literal values is read at any size",
		func() Result { return analyze(text, db, 0) },
		func(err error) Result { return unknown(text, err) })
}

// countTokens counts the tokens the parser reads for text at dynamic SQL
// nesting level nest: its own and, when it names a word that runs a text
// (EXEC, sp_executesql…: its literals may be parsed as SQL while its tree
// is held, dynamic.go), those of each of its string literals, up to
// maxNesting levels deep.
func countTokens(text string, nest int) int {
	n, runs := 0, false
	lexEach(text, func(t token) {
		n++
		runs = runs || runsWord(t, text[t.start:t.end])
	})
	if runs && nest < maxNesting {
		lexEach(text, func(t token) {
			if t.kind == tokString {
				n += countTokens(unquoteString(text[t.start:t.end]), nest+1)
			}
		})
	}
	return n
}

package analyzer

import (
	"context"
	"slices"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// The parser's tree costs memory per token, not per byte: an 8 MiB
// multi-row INSERT of one-number rows held 950 MiB of heap while parsed,
// one of 1 KiB strings 9 MiB. A large text is therefore read by the bulk
// reader when it can (linear, no tree), and otherwise parsed only within
// analyzerkit.ParseTrees, the budget of estimated tree bytes that every
// connection of the MySQL and SQL Server listeners shares.

// TokenCost is the estimate, in bytes, of the memory analysing a text
// allocates per token: measured 250–280 on multi-row INSERTs of small
// values (lexing, parsing and classifying; go test -run
// ParseCostCoversTheParser -v ./adapters/inbound/mysql/analyzer/).
const TokenCost = 320

// analyzeBounded is analyze for a client whose leaving ends ctx. A large
// text that the bulk reader reads exactly as the parser would (bulkExact)
// is not parsed; another takes its estimate of parse memory (TokenCost per
// token, twice that where the text is read under other sql_modes too) from
// analyzerkit.ParseTrees, waiting for it until ctx ends, or is uncheckable
// when the estimate is over the whole budget.
func analyzeBounded(ctx context.Context, sql, db string, m Mode) Result {
	if len(sql) < analyzerkit.LargeText || len(sql) > MaxSize || m.Unmodelled != "" || (m.multiByte() && multiByteAmbiguous(sql)) {
		return analyze(sql, db, m, 0) // small, or never parsed
	}
	if r, ok := bulkExact(sql, db, m); ok {
		return r
	}
	n := 0
	l := lexEach(sql, m, func(token) { n++ })
	perToken := int64(TokenCost)
	if l.backslashInQuote && !m.Exact {
		perToken *= 2 // otherModes parses again while the first tree is held
	}
	return analyzerkit.Parse(ctx, analyzerkit.ParseTrees, n, perToken, "a multi-row INSERT of literal values is read at any size",
		func() Result { return analyze(sql, db, m, 0) },
		func(err error) Result { return unknown(sql, err) })
}

// bulkExact reads sql with the bulk reader where that gives the parser's
// result: every statement a bulk INSERT whose head (table, columns) the
// parser reads and, where a string holds a
// backslash and the sql_mode is not known exactly, every other reading of
// NO_BACKSLASH_ESCAPES and ANSI_QUOTES bulk INSERTs of the same tables
// starting at the same bytes (what otherModes requires of the parser's
// readings), at least one. false: only the parser can tell.
func bulkExact(sql, db string, m Mode) (Result, bool) {
	out, b, backslash, err := readBulk(sql, db, m)
	if err != nil || len(out.Statements) == 0 {
		return Result{}, false
	}
	// The names are the parser's to accept (a reserved word such as IN is
	// not a table): each statement's head, up to VALUES, must parse with
	// an empty row.
	for i, start := range b.starts {
		head := sql[start:b.heads[i]] + " ()"
		if _, err := parseText(lex(head, m).code, m); err != nil {
			return Result{}, false
		}
	}
	if backslash && !m.Exact {
		for _, flip := range [][2]bool{{true, false}, {false, true}, {true, true}} {
			alt := m
			alt.NoBackslashEscapes = m.NoBackslashEscapes != flip[0]
			alt.ANSIQuotes = m.ANSIQuotes != flip[1]
			other, ob, _, err := readBulk(sql, db, alt)
			if err != nil || !sameTables(out.Statements, other.Statements) || !slices.Equal(b.starts, ob.starts) {
				return Result{}, false
			}
		}
	}
	return out, true
}

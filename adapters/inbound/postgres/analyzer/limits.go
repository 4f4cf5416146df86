package analyzer

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// ErrUncheckable is wrapped by Result.Err when the analyzer cannot read a
// text that PostgreSQL may still run: too large, or nested too deep. Unlike
// a syntax error (UNKNOWN, which the upstream refuses too), such a text must
// be refused by the listener, never passed on as UNKNOWN.
var ErrUncheckable = analyzerkit.ErrUncheckable

// MaxSize is the longest text the analyzer parses, in bytes. Parsing costs
// about 100 times the text in memory (15 MiB took 1.7 GiB and 19 s).
// Larger texts are uncheckable; bulk loads belong in COPY, whose data is not
// parsed, or in bound parameters.
const MaxSize = 8 << 20

// MaxDepth bounds how deeply a text may nest, as depthBound counts it.
// libpg_query turns the parse tree into protobuf recursively on the C stack:
// about 25,000 chained operators (1 + 1 + …, 1::int::int…, UNION or JOIN
// chains) overflow an 8 MiB thread stack and kill the whole process.
// PostgreSQL itself refuses far shallower texts at its default
// max_stack_depth (2 MB: about 4,500 chained operators).
const MaxDepth = 10000

// budget bounds the bytes of large texts (64 KiB and more,
// analyzerkit.LargeText) that the parser and scanner work on at once, across every connection: each costs
// about 100 times its size in memory, so many connections sending texts near
// MaxSize at once would otherwise exhaust the process's memory. A text
// waits for its turn, until its client leaves.
var budget = analyzerkit.NewBudget(MaxSize, analyzerkit.LargeText)

// checkLimits returns an ErrUncheckable error for a text over MaxSize or
// nested deeper than MaxDepth, before it reaches the parser. Every token
// depthBound counts is at least one byte long.
func checkLimits(sql string) error {
	if err := analyzerkit.CheckSize(sql, MaxSize); err != nil {
		return err
	}
	return analyzerkit.CheckDepth(len(sql), MaxDepth, func() int { return depthBound(sql) })
}

// depthBound returns an upper bound, up to a small factor, of the depth of
// sql's parse tree, from its tokens (analyzerkit.Depth). Each token that
// may add a level to a left-recursive chain (operators, casts, keywords)
// links at its bracket level; a comma, OR (flattened into one node) and the
// arms of a CASE start a new chain at their level, since a chain cannot
// continue through them without brackets; each open bracket counts one
// more; set operations and joins, whose chains cross commas, count for the
// whole statement. A text the scanner refuses returns 0: the parser stops
// at the same place with a syntax error.
func depthBound(sql string) int {
	res, err := pg.Scan(sql)
	if err != nil {
		return 0
	}
	var d analyzerkit.Depth
	for _, t := range res.Tokens {
		switch t.Token {
		case pg.Token_SQL_COMMENT, pg.Token_C_COMMENT, pg.Token_IDENT, pg.Token_UIDENT, pg.Token_PARAM,
			pg.Token_ICONST, pg.Token_FCONST, pg.Token_SCONST, pg.Token_USCONST, pg.Token_BCONST, pg.Token_XCONST,
			pg.Token_ASCII_46: // '.'
		case pg.Token_ASCII_40, pg.Token_ASCII_91, pg.Token_CASE: // '(' '[' CASE
			d.Open()
		case pg.Token_ASCII_41, pg.Token_ASCII_93, pg.Token_END_P: // ')' ']' END
			d.Close()
		case pg.Token_ASCII_44, pg.Token_OR, pg.Token_WHEN, pg.Token_THEN, pg.Token_ELSE: // ','
			d.Chain()
		case pg.Token_ASCII_59: // ';': the next statement
			d.Next()
		case pg.Token_UNION, pg.Token_INTERSECT, pg.Token_EXCEPT, pg.Token_JOIN:
			d.Global()
		default:
			d.Link()
		}
	}
	return d.Max()
}

// HoldBudget takes the whole parse budget until release is called, for
// listener tests (analyzerkit.Budget.Hold).
func HoldBudget() (release func()) { return budget.Hold() }

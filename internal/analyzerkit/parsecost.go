package analyzerkit

import (
	"context"
	"fmt"
)

// A parser that builds a tree in the Go heap (MySQL's TiDB parser, SQL
// Server's ANTLR grammar) costs memory per token, not per byte: a text of
// few long strings is cheap, a multi-row INSERT of one-number rows of the
// same size costs hundreds of times its length. Such an analyzer counts a
// large text's tokens (its own lexer) and parses it only within its share
// of ParseTrees.

// ParseBytes is the size of ParseTrees, in bytes of estimated parse tree.
// The memory bound's base counts it once (docs/config.md, "Memory bound").
const ParseBytes = 64 << 20

// ParseTrees bounds the estimated memory of the parse trees that the Go
// parsers build for large texts (LargeText and more) at once, across every
// connection of every MySQL and SQL Server listener of the process: one
// Budget, in bytes of estimated tree, so the bound holds whichever
// listeners a Sidecar runs.
var ParseTrees = NewBudget(ParseBytes, 0)

// Parse runs parse holding tokens × perToken bytes (the analyzer's estimate
// of its tree) of b, waiting for them until ctx ends. When the estimate
// alone is over the whole budget, or ctx ends first, parse does not run and
// Parse returns refused(err), err wrapping ErrUncheckable and saying the
// tokens, the estimate and the budget in MiB (or the ended wait); hint,
// when not empty, is added to the first (what the analyzer reads at any
// size instead).
func Parse[T any](ctx context.Context, b *Budget, tokens int, perToken int64, hint string, parse func() T, refused func(error) T) T {
	cost := int64(tokens) * perToken
	if cost > b.size {
		if hint != "" {
			hint = " (" + hint + ")"
		}
		return refused(fmt.Errorf("%w: the text has %d tokens; parsing it would take about %d MiB, over the %d MiB the Sidecar parses at once%s",
			ErrUncheckable, tokens, cost>>20, b.size>>20, hint))
	}
	return WithBudget(ctx, b, cost, parse, refused)
}

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
// budget, so the bound holds whichever listeners a Sidecar runs.
var ParseTrees = NewParseBudget(ParseBytes)

// ParseBudget is a Budget in bytes of estimated parse tree: a text takes
// tokens × perToken, its analyzer's estimate, while it is parsed.
type ParseBudget struct {
	budget *Budget
	size   int64
}

// NewParseBudget returns a parse budget of size bytes.
func NewParseBudget(size int64) *ParseBudget {
	return &ParseBudget{budget: NewBudget(size, 0), size: size}
}

// Parse runs parse holding tokens × perToken bytes of p, waiting for them
// until ctx ends. When the estimate alone is over the whole budget, or ctx
// ends first, parse does not run and Parse returns refused(err), err
// wrapping ErrUncheckable and saying the tokens, the estimate and the
// budget in MiB (or the ended wait); hint, when not empty, is added to the
// first (what the analyzer reads at any size instead).
func Parse[T any](ctx context.Context, p *ParseBudget, tokens int, perToken int64, hint string, parse func() T, refused func(error) T) T {
	cost := int64(tokens) * perToken
	if cost > p.size {
		if hint != "" {
			hint = " (" + hint + ")"
		}
		return refused(fmt.Errorf("%w: the text has %d tokens; parsing it would take about %d MiB, over the %d MiB the Sidecar parses at once%s",
			ErrUncheckable, tokens, cost>>20, p.size>>20, hint))
	}
	return WithBudget(ctx, p.budget, cost, parse, refused)
}

// Hold takes the whole budget until release is called, for tests (Budget.Hold).
func (p *ParseBudget) Hold() (release func()) { return p.budget.Hold() }

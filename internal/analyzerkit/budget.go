package analyzerkit

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/semaphore"
)

// ErrUncheckable is wrapped by an analysis's error when the analyzer cannot
// read a text the server may still run (too large, nested too deep, its
// client gone before its turn to be parsed): unlike a syntax error, the
// listener must refuse such a text. Each analyzer's ErrUncheckable is this.
var ErrUncheckable = errors.New("too complex to check")

// LargeText is the size from which a text takes its share of a parse
// budget, in bytes: smaller texts cost too little to wait for.
const LargeText = 64 << 10

// Budget bounds the bytes of large texts a parser works on at once, across
// every connection: a text of from bytes or more, and at most the budget's
// size, takes its length in bytes for the time it is parsed; smaller texts
// pass freely, larger ones are the analyzer's to refuse before parsing.
type Budget struct {
	sem       *semaphore.Weighted
	size      int64
	fromBytes int64
}

// NewBudget returns a budget of size bytes for texts of fromBytes or more.
func NewBudget(size, fromBytes int64) *Budget {
	return &Budget{sem: semaphore.NewWeighted(size), size: size, fromBytes: fromBytes}
}

// Acquire takes n bytes of the budget, waiting for them until ctx ends, and
// returns the function that gives them back (call it once). When ctx ends
// first it returns an error wrapping ctx's (context.Canceled when the client
// left) and takes nothing.
func (b *Budget) Acquire(ctx context.Context, n int64) (release func(), err error) {
	if n < b.fromBytes || n > b.size {
		return func() {}, nil
	}
	if err := b.sem.Acquire(ctx, n); err != nil {
		return nil, fmt.Errorf("the text waited for its turn to be parsed (%d bytes of the budget) until its client left: %w", n, err)
	}
	return func() { b.sem.Release(n) }, nil
}

// WithBudget runs fn holding n bytes of b (see Acquire). When ctx ends
// before the bytes are free, fn does not run and WithBudget returns
// refused(err), err wrapping ErrUncheckable and ctx's error; the analyzer
// makes of it a result the listener refuses.
func WithBudget[T any](ctx context.Context, b *Budget, n int64, fn func() T, refused func(error) T) T {
	release, err := b.Acquire(ctx, n)
	if err != nil {
		return refused(fmt.Errorf("%w: %w", ErrUncheckable, err))
	}
	defer release()
	return fn()
}

// Hold takes the whole budget until release is called, for listener tests:
// a large text then waits for its turn as if other connections were
// parsing theirs. Calls of release after the first do nothing.
func (b *Budget) Hold() (release func()) {
	b.sem.Acquire(context.Background(), b.size)
	return sync.OnceFunc(func() { b.sem.Release(b.size) })
}

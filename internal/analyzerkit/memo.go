package analyzerkit

import "context"

// Memo is each SQL analyzer's cache of analyses: by the exact text (with
// what its reading depends on, in K: the session's database, its SQL mode)
// and, for a text of one DML statement, by its shape (the text with its
// literals replaced), so texts that differ only in literals are analysed
// once. It is a Cache bounded in bytes; it is safe for concurrent use.
type Memo[K comparable, R any] struct {
	*Cache[K, R]
	of MemoOf[K, R]
}

// MemoOf is what a Memo needs of its analyzer.
type MemoOf[K comparable, R any] struct {
	// MaxText is the longest text kept, in bytes: longer ones are analysed
	// but not kept.
	MaxText int
	// Shape returns the key of k's shape; ok is false for a text that has
	// none (not one DML statement, or not shaped cheaply).
	Shape func(k K) (shape K, ok bool)
	// Analyze analyses k for a client whose leaving ends ctx.
	Analyze func(ctx context.Context, k K) R
	// Lone reports whether r is one statement's error-free analysis: only
	// such a result stands for every text of its shape.
	Lone func(r R) bool
	// Own returns r, the result kept for text's shape, as text's own (its
	// statement's Text set from text).
	Own func(r R, text string) R
	// KeepOwn also keeps a result found by shape under its own text, so the
	// same text again skips the shaping pass (worth it where shaping costs
	// a lexical pass of its own).
	KeepOwn bool
}

// NewMemo returns a memo of at most maxBytes for the analyzer of.
func NewMemo[K comparable, R any](maxBytes int64, of MemoOf[K, R]) *Memo[K, R] {
	return &Memo[K, R]{Cache: NewCache[K, R](maxBytes), of: of}
}

// NewListenerMemo returns one SQL listener's memo for the analyzer of: a
// memo of at most ListenerCacheBytes (each analyzer's NewCache).
func NewListenerMemo[K comparable, R any](of MemoOf[K, R]) *Memo[K, R] {
	return NewMemo(ListenerCacheBytes, of)
}

// Analyze returns the analysis of text, whose key is k, from the memo when
// it has it for k or for k's shape; otherwise it analyses k (for a client
// whose leaving ends ctx) and keeps the result under k, and under k's shape
// when the result is Lone (and a result found by shape under k with
// KeepOwn). The result is shared: callers must
// not modify it.
func (m *Memo[K, R]) Analyze(ctx context.Context, text string, k K) R {
	if len(text) > m.of.MaxText {
		return m.of.Analyze(ctx, k)
	}
	if r, ok := m.Get(k); ok {
		return r
	}
	shape, shaped := m.of.Shape(k)
	if shaped {
		if r, ok := m.Get(shape); ok {
			r = m.of.Own(r, text)
			if m.of.KeepOwn {
				m.Put(r, k)
			}
			return r
		}
	}
	r := m.of.Analyze(ctx, k)
	if shaped && m.of.Lone(r) {
		m.Put(r, k, shape)
	} else {
		m.Put(r, k)
	}
	return r
}

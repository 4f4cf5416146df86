package analyzer

import (
	"context"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Cache memoises AnalyzeContext by text and current database
// (analyzerkit.Memo: by the exact text, or for a single DML statement by its
// shape, see shapeKey), keeping the most recently used results within a
// bound in bytes. Texts longer than MaxText bytes are analysed but not
// kept. It is safe for concurrent use; the zero value is not usable, call
// NewCache.
type Cache struct {
	entries *analyzerkit.Memo[cacheKey, Result]
}

// MaxText is the longest text Cache keeps, in bytes.
const MaxText = 16 << 10

type cacheKey struct{ text, db string }

// NewCache returns a listener's cache: it holds results whose estimated
// sizes sum to at most analyzerkit.ListenerCacheBytes.
func NewCache() *Cache { return &Cache{entries: analyzerkit.NewListenerMemo(memo)} }

// memo is what the Cache's analyzerkit.Memo needs of this analyzer.
var memo = analyzerkit.MemoOf[cacheKey, Result]{
	MaxText: MaxText,
	KeepOwn: true, // the same text again is an exact hit, without a lexical pass
	Shape: func(k cacheKey) (cacheKey, bool) {
		shape, ok := shapeKey(k.text)
		return cacheKey{shape, k.db}, ok
	},
	Analyze: func(ctx context.Context, k cacheKey) Result { return AnalyzeContext(ctx, k.text, k.db) },
	Lone:    func(r Result) bool { return r.Err == nil && len(r.Statements) == 1 },
	Own: func(r Result, text string) Result {
		st := r.Statements[0]
		st.Text = trimStatement(text)
		return Result{Statements: []Statement{st}}
	},
}

// AnalyzeContext returns AnalyzeContext(ctx, text, currentDB), from the
// cache when it has it, with the statement's Text set to text's own. The
// result is shared: callers must not modify its slices.
func (c *Cache) AnalyzeContext(ctx context.Context, text, currentDB string) Result {
	return c.entries.Analyze(ctx, text, cacheKey{text, currentDB})
}

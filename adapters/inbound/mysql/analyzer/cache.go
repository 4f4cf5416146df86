package analyzer

import (
	"context"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Cache memoises AnalyzeModeContext by text, current database and mode
// (analyzerkit.Memo: by the exact text, or for a single DML statement by
// its shape, see shapeKey), keeping the most recently used results within a
// bound in bytes. Texts longer than MaxText bytes, and texts a multi-byte
// character set may read otherwise, are analysed but not kept. It is safe
// for concurrent use; the zero value is not usable, call NewCache.
type Cache struct {
	entries *analyzerkit.Memo[cacheKey, Result]
}

// MaxText is the longest text Cache keeps, in bytes.
const MaxText = 8 << 10

type cacheKey struct {
	sql, db string
	mode    Mode
}

// NewCache returns a listener's cache: it holds results whose estimated
// sizes sum to at most analyzerkit.ListenerCacheBytes.
func NewCache() *Cache { return &Cache{entries: analyzerkit.NewListenerMemo(memo)} }

// memo is what the Cache's analyzerkit.Memo needs of this analyzer.
var memo = analyzerkit.MemoOf[cacheKey, Result]{
	MaxText: MaxText,
	KeepOwn: true, // the same text again is an exact hit, without a lexical pass
	Shape: func(k cacheKey) (cacheKey, bool) {
		shape, ok := shapeKey(k.sql, k.mode)
		return cacheKey{shape, k.db, k.mode}, ok
	},
	Analyze: func(ctx context.Context, k cacheKey) Result { return AnalyzeModeContext(ctx, k.sql, k.db, k.mode) },
	Lone:    func(r Result) bool { return r.Err == nil && len(r.Statements) == 1 },
	Own: func(r Result, sql string) Result {
		st := r.Statements[0]
		st.Text = trimStatement(sql)
		return Result{Statements: []Statement{st}}
	},
}

// AnalyzeModeContext returns AnalyzeModeContext(ctx, sql, currentDB, m),
// from the cache when it has it, with the statement's Text set to sql's
// own. The result is shared: callers must not modify its slices.
func (c *Cache) AnalyzeModeContext(ctx context.Context, sql, currentDB string, m Mode) Result {
	if m.multiByte() && multiByteAmbiguous(sql) { // before the shape, which hides literals
		return AnalyzeModeContext(ctx, sql, currentDB, m)
	}
	return c.entries.Analyze(ctx, sql, cacheKey{sql, currentDB, m})
}

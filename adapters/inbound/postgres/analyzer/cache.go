package analyzer

import (
	"context"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Cache memoises AnalyzeContext by statement text (analyzerkit.Memo: by
// the exact text, or for a single DML statement by its shape, see fastShape
// and shapeKey), keeping the most recently used results within a bound in
// bytes. Texts longer than MaxText bytes are analysed but not kept. It is
// safe for concurrent use; the zero value is not usable, call NewCache.
type Cache struct {
	entries *analyzerkit.Memo[string, Result]
}

// MaxText is the longest text Cache keeps, in bytes.
const MaxText = 8 << 10

// NewCache returns a listener's cache: it holds results whose estimated
// sizes sum to at most analyzerkit.ListenerCacheBytes.
func NewCache() *Cache { return &Cache{entries: analyzerkit.NewListenerMemo(memo)} }

// memo is what the Cache's analyzerkit.Memo needs of this analyzer.
var memo = analyzerkit.MemoOf[string, Result]{
	MaxText: MaxText,
	Shape: func(sql string) (string, bool) {
		if shape, ok := fastShape(sql); ok { // most texts: no call into the C scanner
			return shape, true
		}
		return shapeKey(sql)
	},
	Analyze: AnalyzeContext,
	// A statement whose effects read its constants' values (WHERE 1 = 1)
	// stands for no other text of its shape (WHERE 1 = 2).
	Lone: func(r Result) bool { return r.Err == nil && len(r.Statements) == 1 && !r.Statements[0].constants },
	Own: func(r Result, sql string) Result {
		st := r.Statements[0]
		st.Text = stmtText(sql, 0, 0)
		return Result{Statements: []Statement{st}}
	},
}

// AnalyzeContext returns AnalyzeContext(ctx, sql), from the cache when it
// has it, with the statement's Text set to sql's own. The result is shared:
// callers must not modify its slices.
func (c *Cache) AnalyzeContext(ctx context.Context, sql string) Result {
	return c.entries.Analyze(ctx, sql, sql)
}

package analyzer

import (
	"context"
	"testing"

	"github.com/hoophq/sidecar/internal/analyzerkit"
	"github.com/hoophq/sidecar/internal/analyzerkit/kittest"
)

var kit = kittest.Analyzer{Hook: &testHook, Budget: budget, Size: MaxSize,
	Analyze: func(ctx context.Context, text string) ([]string, error) {
		r := AnalyzeModeContext(ctx, text, "", Mode{})
		return r.Statements[0].Analysis.Actions, r.Err
	}}

func TestPanicIsUnknown(t *testing.T) { kittest.PanicIsUnknown(t, kit) }

func TestBudgetWaitEndsWithClient(t *testing.T) { kittest.BudgetWaitEndsWithClient(t, kit) }

// The cache is bounded in bytes: texts past the bound evict the oldest.
func TestCacheBoundInBytes(t *testing.T) {
	c := newCache(32 << 10)
	kittest.CacheBoundInBytes(t, 32<<10, func(s string) { c.Analyze(s, "db") }, c.entries.Bytes,
		func(s string) bool { _, ok := c.entries.Get(cacheKey{s, "db", Mode{}}); return ok })
}

// Analyze and AnalyzeMode are the tests' AnalyzeModeContext without a
// client to wait for (the listeners always pass their client's).
func (c *Cache) Analyze(sql, currentDB string) Result {
	return c.AnalyzeMode(sql, currentDB, Mode{})
}

func (c *Cache) AnalyzeMode(sql, currentDB string, m Mode) Result {
	return c.AnalyzeModeContext(context.Background(), sql, currentDB, m)
}

// newCache is NewCache holding at most maxBytes: a bound small enough for a
// test to fill.
func newCache(maxBytes int64) *Cache { return &Cache{entries: analyzerkit.NewMemo(maxBytes, memo)} }

package analyzer

import (
	"context"
	"fmt"
	"testing"

	"github.com/hoophq/sidecar/internal/analyzerkit/kittest"
)

var kit = kittest.Analyzer{Hook: &testHook, Budget: budget, Size: MaxSize, Unknown: Unknown,
	Analyze: func(ctx context.Context, text string) ([]string, error) {
		r := AnalyzeModeContext(ctx, text, "", Mode{})
		return r.Statements[0].Analysis.Actions, r.Err
	}}

func TestPanicIsUnknown(t *testing.T) { kittest.PanicIsUnknown(t, kit) }

func TestBudgetWaitEndsWithClient(t *testing.T) { kittest.BudgetWaitEndsWithClient(t, kit) }

// The cache is bounded in bytes: texts past the bound evict the oldest.
func TestCacheBoundInBytes(t *testing.T) {
	c := NewCache(32 << 10)
	c.Analyze("DROP TABLE t", "db")
	for i := range 300 {
		c.Analyze(fmt.Sprintf("CREATE TABLE t%d (a int)", i), "db")
		if n := c.entries.Bytes(); n > 32<<10 {
			t.Fatalf("after %d texts the cache holds %d bytes, over its bound of %d", i+1, n, 32<<10)
		}
	}
	if _, ok := c.entries.Get(cacheKey{"DROP TABLE t", "db", Mode{}}); ok {
		t.Fatal("least recently used entry was kept")
	}
	if n := c.entries.Len(); n < 10 || n > 300 {
		t.Fatalf("cache holds %d entries", n)
	}
}

package analyzer

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/hoophq/sidecar/internal/analyzerkit"
	"github.com/hoophq/sidecar/internal/analyzerkit/kittest"
)

var kit = kittest.Analyzer{Hook: &testHook, Budget: budget, Size: MaxSize,
	Analyze: func(ctx context.Context, text string) ([]string, error) {
		r := AnalyzeContext(ctx, text)
		return r.Statements[0].Analysis.Actions, r.Err
	}}

func TestPanicIsUnknown(t *testing.T) { kittest.PanicIsUnknown(t, kit) }

func TestBudgetWaitEndsWithClient(t *testing.T) { kittest.BudgetWaitEndsWithClient(t, kit) }

// The cache's estimate of its bytes is not far below what its entries take
// on the heap, so the memory bound that counts analyzerkit.ListenerCacheBytes holds. Logged:
// heap growth against the estimate, for docs/config.md.
func TestCacheBytesMatchHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a cache")
	}
	const bound = 1 << 20
	c := newCache(bound)
	for i := range 5000 {
		c.Analyze(fmt.Sprintf("UPDATE accounts_%d SET balance = balance + $1, note = 'n%d' WHERE id = $2 AND region IN ('a', 'b') RETURNING balance", i, i))
	}
	var with, without runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&with)
	n, est := c.entries.Len(), c.entries.Bytes()
	runtime.KeepAlive(c)
	c = nil
	runtime.GC()
	runtime.ReadMemStats(&without)
	held := int64(with.HeapAlloc) - int64(without.HeapAlloc)
	t.Logf("%d entries, estimated %d bytes, held %d bytes of heap", n, est, held)
	if est > bound {
		t.Fatalf("estimated %d bytes over the bound %d", est, bound)
	}
	if held > 2*bound {
		t.Fatalf("the cache held %d bytes of heap for a bound of %d: the estimate is too low", held, bound)
	}
}

// Analyze is the tests' AnalyzeContext without a client to wait for (the
// listeners always pass their client's).
func (c *Cache) Analyze(sql string) Result { return c.AnalyzeContext(context.Background(), sql) }

// newCache is NewCache holding at most maxBytes: a bound small enough for a
// test to fill.
func newCache(maxBytes int64) *Cache { return &Cache{entries: analyzerkit.NewMemo(maxBytes, memo)} }

package analyzer

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// A panic while analysing is one Unknown statement with the panic's value
// in Err, not the end of the process.
func TestPanicIsUnknown(t *testing.T) {
	testHook = func(string) { panic("injected") }
	defer func() { testHook = nil }()
	r := Analyze("SELECT 1")
	if r.Err == nil || !strings.Contains(r.Err.Error(), "injected") {
		t.Fatalf("Err = %v, want the panic's value", r.Err)
	}
	if len(r.Statements) != 1 || !slices.Equal(r.Statements[0].Analysis.Actions, []string{Unknown}) {
		t.Fatalf("statements = %+v, want one UNKNOWN", r.Statements)
	}
}

// A large text waiting for the parse budget stops waiting when its client
// leaves, and is uncheckable (the listener refuses it).
func TestBudgetWaitEndsWithClient(t *testing.T) {
	release, err := budget.Acquire(context.Background(), MaxSize)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the client has left
	r := AnalyzeContext(ctx, "SELECT 1"+strings.Repeat(" ", largeText))
	if !errors.Is(r.Err, ErrUncheckable) || !errors.Is(r.Err, context.Canceled) {
		t.Fatalf("Err = %v, want ErrUncheckable and context.Canceled", r.Err)
	}
	if r := AnalyzeContext(ctx, "SELECT 1"); r.Err != nil {
		t.Fatalf("a small text waits for the budget: %v", r.Err)
	}
}

// The cache's estimate of its bytes is not far below what its entries take
// on the heap, so the memory bound that counts CacheBytes holds. Logged:
// heap growth against the estimate, for docs/config.md.
func TestCacheBytesMatchHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a cache")
	}
	const bound = 1 << 20
	c := NewCache(bound)
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

package analyzer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A panic while analysing is Unknown with the panic's value in Err, not
// the end of the process.
func TestPanicIsUnknown(t *testing.T) {
	testHook = func(string) { panic("injected") }
	defer func() { testHook = nil }()
	r := Analyze("SELECT 1", "")
	if r.Err == nil || !strings.Contains(r.Err.Error(), "injected") {
		t.Fatalf("Err = %v, want the panic's value", r.Err)
	}
	if len(r.Statements) != 1 || !slices.Contains(r.Statements[0].Analysis.Actions, Unknown) {
		t.Fatalf("statements = %+v, want UNKNOWN", r.Statements)
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
	r := AnalyzeModeContext(ctx, "SELECT 1"+strings.Repeat(" ", largeText), "", Mode{})
	if !errors.Is(r.Err, ErrUncheckable) || !errors.Is(r.Err, context.Canceled) {
		t.Fatalf("Err = %v, want ErrUncheckable and context.Canceled", r.Err)
	}
	if r := AnalyzeModeContext(ctx, "SELECT 1", "", Mode{}); r.Err != nil {
		t.Fatalf("a small text waits for the budget: %v", r.Err)
	}
}

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

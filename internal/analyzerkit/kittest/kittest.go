// Package kittest holds the tests every SQL analyzer runs against the
// promises of analyzerkit: a panic while analysing is UNKNOWN, and a large
// text's wait for the parse budget ends with its client.
package kittest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Analyzer is what the tests need of an analyzer package.
type Analyzer struct {
	// Hook is the package's test hook, run before each analysis.
	Hook *func(text string)
	// Analyze analyses text for a client whose leaving ends ctx, and returns
	// the first statement's actions and the result's error.
	Analyze func(ctx context.Context, text string) (actions []string, err error)
	// Budget is the package's parse budget; Size its size in bytes.
	Budget *analyzerkit.Budget
	Size   int64
}

// PanicIsUnknown checks that a panic while analysing gives UNKNOWN with
// the panic's value in the error, and does not end the process.
func PanicIsUnknown(t *testing.T, a Analyzer) {
	t.Helper()
	*a.Hook = func(string) { panic("injected") }
	defer func() { *a.Hook = nil }()
	actions, err := a.Analyze(context.Background(), "SELECT 1")
	if err == nil || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("err = %v, want the panic's value", err)
	}
	if !slices.Contains(actions, domain.ActionUnknown) {
		t.Fatalf("actions = %v, want %s", actions, domain.ActionUnknown)
	}
}

// BudgetWaitEndsWithClient checks that a large text waiting for a full
// budget stops waiting when its context ends, with an error wrapping
// ErrUncheckable and the context's, and that a small text does not wait.
func BudgetWaitEndsWithClient(t *testing.T, a Analyzer) {
	t.Helper()
	release, err := a.Budget.Acquire(context.Background(), a.Size)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the client has left
	_, err = a.Analyze(ctx, "SELECT 1"+strings.Repeat(" ", analyzerkit.LargeText))
	if !errors.Is(err, analyzerkit.ErrUncheckable) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrUncheckable and context.Canceled", err)
	}
	if _, err := a.Analyze(ctx, "SELECT 1"); err != nil {
		t.Fatalf("a small text waits for the budget: %v", err)
	}
}

// CacheBoundInBytes checks a cache of bound bytes: analyse writes texts
// into it, bytes returns what it holds, kept whether it keeps a text. Texts
// past the bound keep the total within it and evict the oldest first.
func CacheBoundInBytes(t *testing.T, bound int64, analyse func(text string), bytes func() int64, kept func(text string) bool) {
	t.Helper()
	analyse("DROP TABLE t")
	for i := range 300 {
		analyse(fmt.Sprintf("CREATE TABLE t%d (a int)", i)) // no shape: one entry each
		if n := bytes(); n > bound {
			t.Fatalf("after %d texts the cache holds %d bytes, over its bound of %d", i+1, n, bound)
		}
	}
	if kept("DROP TABLE t") {
		t.Fatal("the least recently used entry was kept")
	}
	if !kept("CREATE TABLE t299 (a int)") {
		t.Fatal("the newest entry was evicted")
	}
}

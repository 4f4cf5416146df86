package analyzerkit

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// A memo answers a text of a known shape from the shape's result, made the
// text's own, and keeps it under the text only with KeepOwn; results that
// are not Lone never stand for their shape.
func TestMemoByShape(t *testing.T) {
	for _, keep := range []bool{false, true} {
		analysed := 0
		m := NewMemo(1<<20, MemoOf[string, string]{
			MaxText: 100,
			Shape: func(k string) (string, bool) {
				return strings.TrimRight(k, "0123456789"), !strings.HasPrefix(k, "multi")
			},
			Analyze: func(context.Context, string) string { analysed++; return "r" },
			Lone:    func(r string) bool { return r == "r" },
			Own:     func(r, text string) string { return r + ":" + text },
			KeepOwn: keep,
		})
		m.Analyze(context.Background(), "q1", "q1")
		if got := m.Analyze(context.Background(), "q2", "q2"); got != "r:q2" || analysed != 1 {
			t.Fatalf("keep %v: by shape = %q after %d analyses", keep, got, analysed)
		}
		if _, ok := m.Get("q2"); ok != keep {
			t.Errorf("keep %v: the text found by shape kept: %v", keep, ok)
		}
		m.Analyze(context.Background(), "multi1", "multi1")
		m.Analyze(context.Background(), "multi2", "multi2")
		if analysed != 3 {
			t.Errorf("keep %v: texts without a shape shared a result", keep)
		}
	}
}

// A wait of a large text ends when the watch reports the client gone; a
// small one is not watched.
func TestWhileConnected(t *testing.T) {
	watched := 0
	var gone func(error)
	watch := func(g func(error)) func() { watched++; gone = g; return func() {} }
	ctx, done := WhileConnected(LargeText-1, watch)
	if watched != 0 || ctx.Done() != nil || done() {
		t.Fatal("a small text is watched")
	}
	ctx, done = WhileConnected(LargeText, watch)
	if watched != 1 || ctx.Err() != nil {
		t.Fatal("a large text is not watched")
	}
	gone(errors.New("EOF"))
	if !errors.Is(context.Cause(ctx), ErrClientGone) || !done() {
		t.Fatalf("after the hang-up: cause %v", context.Cause(ctx))
	}
	ctx, done = WhileConnected(LargeText, watch)
	if done() || ctx.Err() == nil {
		t.Fatal("a client still connected is reported gone, or the context outlives done")
	}
}

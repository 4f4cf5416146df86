package analyzerkit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

// The bound is in bytes: entries added past it evict the oldest, and the
// total cost never exceeds it.
func TestCacheBoundInBytes(t *testing.T) {
	c := NewCache[string, string](10 << 10)
	for i := range 1000 {
		k := fmt.Sprintf("k%04d", i)
		c.Put(strings.Repeat("x", 200), k)
		if b := c.Bytes(); b > 10<<10 {
			t.Fatalf("after %d entries the cache holds %d bytes, over its bound of %d", i+1, b, 10<<10)
		}
	}
	if _, ok := c.Get("k0000"); ok {
		t.Error("the oldest entry is still kept")
	}
	if _, ok := c.Get("k0999"); !ok {
		t.Error("the newest entry was evicted")
	}
	if n := c.Len(); n < 10 || n > 40 {
		t.Errorf("%d entries of about 330 bytes in 10 KiB", n)
	}
	c.Add("huge", strings.Repeat("x", 20<<10), 20<<10)
	if _, ok := c.Get("huge"); ok {
		t.Error("an entry larger than the whole bound is kept")
	}
}

// Get marks an entry as recently used, so it outlives newer ones.
func TestCacheLRU(t *testing.T) {
	c := NewCache[int, int](300)
	c.Add(1, 1, 100)
	c.Add(2, 2, 100)
	c.Add(3, 3, 100)
	c.Get(1)
	c.Add(4, 4, 100)
	if _, ok := c.Get(2); ok {
		t.Error("2, the least recently used, is kept")
	}
	if _, ok := c.Get(1); !ok {
		t.Error("1, just read, was evicted")
	}
}

func TestCacheConcurrent(t *testing.T) {
	c := NewCache[int, int](4 << 10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				c.Add(g*10000+i, i, 64)
				c.Get(g*10000 + i/2)
			}
		}()
	}
	wg.Wait()
	if c.Bytes() > 4<<10 {
		t.Errorf("%d bytes over a bound of 4096", c.Bytes())
	}
}

// Size counts strings and slices reached through the value.
func TestSize(t *testing.T) {
	type res struct {
		Texts []string
		Err   error
	}
	small := Size(res{Texts: []string{"a"}})
	big := Size(res{Texts: []string{strings.Repeat("a", 1000), strings.Repeat("b", 1000)}, Err: errors.New(strings.Repeat("e", 500))})
	if big-small < 2500 {
		t.Errorf("Size grew by %d bytes for 2.5 KB more of text", big-small)
	}
}

// A wait for the budget ends when its context does, with the context's
// error, and takes nothing.
func TestBudgetWaitEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBudget(100, 10)
		release, err := b.Acquire(context.Background(), 100)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			_, err := b.Acquire(ctx, 50)
			done <- err
		}()
		synctest.Wait() // the second text is waiting
		select {
		case err := <-done:
			t.Fatalf("Acquire returned %v while the budget was full", err)
		default:
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire after the client left: %v, want context.Canceled", err)
		}
		release()
		r, err := b.Acquire(context.Background(), 100)
		if err != nil {
			t.Fatalf("the whole budget after release: %v (the cancelled wait took bytes)", err)
		}
		r()
	})
}

// Small texts and texts over the budget's size pass without waiting.
func TestBudgetOutsideRange(t *testing.T) {
	b := NewBudget(100, 10)
	r, _ := b.Acquire(context.Background(), 100)
	defer r()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, n := range []int64{5, 200} {
		if _, err := b.Acquire(ctx, n); err != nil {
			t.Errorf("Acquire(%d) waited: %v", n, err)
		}
	}
}

func TestGuard(t *testing.T) {
	v, err := Guard(func() int { return 7 })
	if v != 7 || err != nil {
		t.Errorf("Guard without panic = %d, %v", v, err)
	}
	v, err = Guard(func() int { panic("boom") })
	var pe *PanicError
	if v != 0 || !errors.As(err, &pe) || pe.Value != "boom" || !strings.Contains(err.Error(), "boom") || len(pe.Stack) == 0 {
		t.Errorf("Guard with panic = %d, %v", v, err)
	}
}

func TestVocabulary(t *testing.T) {
	calls := 0
	v := NewVocabulary(func(add func(...string)) {
		calls++
		add("drop", "SELECT", "DROP")
		add("ALTER")
	})
	if got := strings.Join(v.Actions(), ","); got != "ALTER,DROP,SELECT" {
		t.Errorf("Actions = %s", got)
	}
	if !v.IsAction("Drop") || v.IsAction("DORP") {
		t.Error("IsAction")
	}
	v.Actions()
	if calls != 1 {
		t.Errorf("build ran %d times", calls)
	}
}

// Parse runs the parse within the budget, refuses at once a text whose
// estimate alone is over it (naming its tokens, the estimate and the
// budget), and refuses one whose client leaves while it waits.
func TestParseBudget(t *testing.T) {
	p := NewBudget(10<<20, 0)
	refused := func(err error) error { return err }
	ran := func() error { return nil }
	if err := Parse(context.Background(), p, 1000, 1024, "", ran, refused); err != nil {
		t.Fatalf("within the budget: %v", err)
	}
	err := Parse(context.Background(), p, 20000, 1024, "a bulk INSERT is read at any size", ran, refused)
	if !errors.Is(err, ErrUncheckable) || err.Error() != "too complex to check: the text has 20000 tokens; parsing it would take about 19 MiB, over the 10 MiB the Sidecar parses at once (a bulk INSERT is read at any size)" {
		t.Fatalf("over the budget: %v", err)
	}
	release := p.Hold()
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Parse(ctx, p, 1000, 1024, "", ran, refused); !errors.Is(err, ErrUncheckable) || !errors.Is(err, context.Canceled) {
		t.Fatalf("client gone while waiting: %v", err)
	}
}

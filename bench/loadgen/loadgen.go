// Package loadgen is the closed-loop measurement the Go load generators of
// bench/ share (mongoload, mssqlload): conns workers, each sending one
// operation after another for a fixed time, and the result line the bench
// scripts read.
package loadgen

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// Result is one measured run.
type Result struct {
	Latencies []time.Duration // of the operations that succeeded, sorted
	Errors    int
	Duration  time.Duration
	FirstErr  error // the first failed operation's error, if any
}

// Run sends op for warmup (not counted), then for dur, on conns workers;
// worker w passes k = w, w+conns, w+2·conns, … so the workers cover the
// keys between them.
func Run(conns int, warmup, dur time.Duration, op func(k int) error) Result {
	run(conns, warmup, op)
	r := run(conns, dur, op)
	r.Duration = dur
	return r
}

func run(conns int, d time.Duration, op func(k int) error) Result {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var r Result
	end := time.Now().Add(d)
	for w := 0; w < conns; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var mine []time.Duration
			bad := 0
			var first error
			for k := w; time.Now().Before(end); k += conns {
				t0 := time.Now()
				if err := op(k); err != nil {
					bad++
					if first == nil {
						first = err
					}
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			r.Latencies, r.Errors = append(r.Latencies, mine...), r.Errors+bad
			if r.FirstErr == nil {
				r.FirstErr = first
			}
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	slices.Sort(r.Latencies)
	return r
}

// Line is the result as the scripts read it (times in microseconds):
//
//	requests=N errors=N rps=N p50=N p90=N p99=N max=N
func (r Result) Line() string {
	pct := func(p float64) int64 {
		if len(r.Latencies) == 0 {
			return 0
		}
		return r.Latencies[min(len(r.Latencies)-1, int(p*float64(len(r.Latencies))))].Microseconds()
	}
	return fmt.Sprintf("requests=%d errors=%d rps=%.0f p50=%d p90=%d p99=%d max=%d", len(r.Latencies), r.Errors,
		float64(len(r.Latencies))/r.Duration.Seconds(), pct(0.50), pct(0.90), pct(0.99), pct(1))
}

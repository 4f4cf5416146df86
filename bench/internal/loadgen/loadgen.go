// Package loadgen is the closed loop the bench load generators share
// (bench/mongoload, bench/mysqlload): a number of workers, each sending one
// operation and waiting for its answer before the next, for a fixed time
// after a warm-up, then one result line with the latency percentiles and
// the generator's own CPU time per operation.
package loadgen

import (
	"fmt"
	"slices"
	"sync"
	"syscall"
	"time"
)

// Op runs one operation on worker w (0…conns-1); k counts that worker's
// operations (w, w+conns, w+2·conns, …), so workers cycle through keys
// without meeting. An error counts the operation as failed.
type Op func(w, k int) error

// Result is one measured run.
type Result struct {
	Lat    []time.Duration // the latency of each successful operation, sorted
	Errors int
	Wall   time.Duration // the measured time
	CPU    time.Duration // this process's user + system CPU time during it
}

// Run sends op from conns workers for warmup (not counted), then for d.
func Run(conns int, d, warmup time.Duration, op Op) Result {
	loop(conns, warmup, op)
	c0 := cpu()
	t0 := time.Now()
	lat, errs := loop(conns, d, op)
	r := Result{Lat: lat, Errors: errs, Wall: time.Since(t0), CPU: cpu() - c0}
	slices.Sort(r.Lat)
	return r
}

func loop(conns int, d time.Duration, op Op) ([]time.Duration, int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var lat []time.Duration
	errs := 0
	end := time.Now().Add(d)
	for w := range conns {
		wg.Go(func() {
			mine := make([]time.Duration, 0, 1<<16)
			bad := 0
			for k := w; ; k += conns {
				t0 := time.Now()
				if !t0.Before(end) {
					break
				}
				if err := op(w, k); err != nil {
					bad++
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat, errs = append(lat, mine...), errs+bad
			mu.Unlock()
		})
	}
	wg.Wait()
	return lat, errs
}

// cpu returns the user + system CPU time this process has used.
func cpu() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Pct returns the p-quantile (0…1) of the latencies in microseconds.
func (r Result) Pct(p float64) int64 {
	if len(r.Lat) == 0 {
		return 0
	}
	return r.Lat[min(len(r.Lat)-1, int(p*float64(len(r.Lat))))].Microseconds()
}

// Line is the result line the bench scripts read (times in microseconds;
// cpu is this generator's own CPU time per operation):
//
//	requests=N errors=N rps=N p50=N p90=N p99=N max=N cpu=N.N
func (r Result) Line() string {
	n := len(r.Lat)
	per := 0.0
	if n > 0 {
		per = float64(r.CPU.Nanoseconds()) / 1e3 / float64(n)
	}
	return fmt.Sprintf("requests=%d errors=%d rps=%.0f p50=%d p90=%d p99=%d max=%d cpu=%.1f", n, r.Errors,
		float64(n)/r.Wall.Seconds(), r.Pct(0.50), r.Pct(0.90), r.Pct(0.99), r.Pct(1), per)
}

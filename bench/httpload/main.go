// Command httpload is the load generator of bench/http.sh: a fixed number of
// keep-alive HTTP/1.1 connections, each sending one GET after another for a
// fixed time, then one line of results.
//
//	go run ./bench/httpload -url http://127.0.0.1:8080/v1/items -c 16 -d 10s
//
// It prints (times in microseconds):
//
//	requests=N errors=N rps=N p50=N p90=N p99=N max=N
//
// Each connection speaks HTTP/1.1 on a raw socket (no http.Client pool), so
// the generator spends little CPU of its own on a small machine. A request
// counts as an error when the connection fails or the answer is not 200; the
// connection is then dialled again. The warm-up (-warmup) is sent but not
// counted.
//
// With -idle it opens -c connections instead, sends one GET on each, prints
// "idle=N errors=N" once every answer is in, and keeps the connections open
// and idle until its standard input closes (bench/http.sh reads the proxy's
// memory meanwhile).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"time"
)

func main() {
	target := flag.String("url", "", "URL to GET (http only)")
	conns := flag.Int("c", 16, "connections (each sends one request at a time)")
	dur := flag.Duration("d", 10*time.Second, "how long to measure")
	warmup := flag.Duration("warmup", time.Second, "how long to send before measuring")
	idle := flag.Bool("idle", false, "open -c connections, one GET each, then hold them idle until stdin closes")
	flag.Parse()
	u, err := url.Parse(*target)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		fmt.Fprintln(os.Stderr, "httpload: -url must be an http:// URL with a host")
		os.Exit(2)
	}
	req := []byte("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: httpload\r\n\r\n")

	if *idle {
		holdIdle(u.Host, req, *conns)
		return
	}
	start := time.Now().Add(*warmup)
	end := start.Add(*dur)
	results := make([]result, *conns)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = run(u.Host, req, start, end)
		}()
	}
	wg.Wait()

	var all []time.Duration
	errs := 0
	for _, r := range results {
		all = append(all, r.lat...)
		errs += r.errors
	}
	if len(all) == 0 {
		fmt.Fprintf(os.Stderr, "httpload: no request succeeded (%d errors)\n", errs)
		os.Exit(1)
	}
	slices.Sort(all)
	pct := func(p float64) int64 { return all[int(p*float64(len(all)-1))].Microseconds() }
	fmt.Printf("requests=%d errors=%d rps=%.0f p50=%d p90=%d p99=%d max=%d\n",
		len(all), errs, float64(len(all))/dur.Seconds(), pct(0.50), pct(0.90), pct(0.99), all[len(all)-1].Microseconds())
}

// result is one connection's measured latencies and error count.
type result struct {
	lat    []time.Duration
	errors int
}

// run sends req on one connection to addr until end, recording the latency
// of every answer completed after start.
func run(addr string, req []byte, start, end time.Time) result {
	var res result
	res.lat = make([]time.Duration, 0, 1<<16)
	var c net.Conn
	var br *bufio.Reader
	for {
		t0 := time.Now()
		if t0.After(end) {
			break
		}
		if c == nil {
			var err error
			if c, err = net.DialTimeout("tcp", addr, 5*time.Second); err != nil {
				res.errors++
				time.Sleep(10 * time.Millisecond)
				continue
			}
			br = bufio.NewReaderSize(c, 16<<10)
		}
		ok, keep := exchange(c, br, req)
		if t0.After(start) {
			if ok {
				res.lat = append(res.lat, time.Since(t0))
			} else {
				res.errors++
			}
		}
		if !keep {
			_ = c.Close()
			c = nil
		}
	}
	if c != nil {
		_ = c.Close()
	}
	return res
}

// exchange writes one request and reads its answer whole. ok: a 200 came
// back; keep: the connection can carry the next request.
func exchange(c net.Conn, br *bufio.Reader, req []byte) (ok, keep bool) {
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write(req); err != nil {
		return false, false
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return false, false
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return err == nil && resp.StatusCode == http.StatusOK, err == nil && !resp.Close
}

// holdIdle opens n connections to addr, sends req once on each, prints how
// many answered with 200, and holds them until standard input closes.
func holdIdle(addr string, req []byte, n int) {
	conns := make([]net.Conn, 0, n)
	errs := 0
	for range n {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			errs++
			continue
		}
		if ok, _ := exchange(c, bufio.NewReaderSize(c, 4<<10), req); !ok {
			errs++
		}
		_ = c.SetDeadline(time.Time{})
		conns = append(conns, c)
	}
	fmt.Printf("idle=%d errors=%d\n", len(conns)-errs, errs)
	_, _ = io.Copy(io.Discard, os.Stdin)
	for _, c := range conns {
		_ = c.Close()
	}
}

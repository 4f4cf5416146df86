// Command grpcload is bench/grpc.sh's load generator and upstream.
//
//	go run ./bench/grpcload -serve 127.0.0.1:0        # the upstream: prints its address
//	go run ./bench/grpcload -target 127.0.0.1:50051 -c 16 -d 10s
//
// The upstream serves the conformance suite's Probe service
// (conformance/grpc/testpb), answering Unary at once and keeping nothing.
// The load generator sends Unary calls (a short Item) over -conns client
// connections with -c calls in flight in all, for -d after a -warmup, and
// prints one line (times in microseconds):
//
//	calls=N errors=N rps=N p50=N p90=N p99=N max=N
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/hoophq/sidecar/conformance/grpc/testpb"
)

type probe struct {
	testpb.UnimplementedProbeServer
}

func (probe) Unary(_ context.Context, in *testpb.Item) (*testpb.Reply, error) {
	return &testpb.Reply{Text: "hello " + in.GetName(), Count: in.GetAmount()}, nil
}

func main() {
	serve := flag.String("serve", "", "run the upstream on this address (host:port) instead of sending load")
	target := flag.String("target", "", "address to send Unary calls to (host:port, plaintext h2c)")
	calls := flag.Int("c", 16, "calls in flight at once")
	conns := flag.Int("conns", 1, "client connections the calls share")
	dur := flag.Duration("d", 10*time.Second, "how long to measure")
	warmup := flag.Duration("warmup", time.Second, "how long to send before measuring")
	flag.Parse()
	if *serve != "" {
		ln, err := net.Listen("tcp", *serve)
		if err != nil {
			fmt.Fprintln(os.Stderr, "grpcload:", err)
			os.Exit(1)
		}
		fmt.Println(ln.Addr().String())
		s := grpc.NewServer()
		testpb.RegisterProbeServer(s, probe{})
		if err := s.Serve(ln); err != nil {
			fmt.Fprintln(os.Stderr, "grpcload:", err)
			os.Exit(1)
		}
		return
	}
	if *target == "" || *calls < 1 || *conns < 1 {
		fmt.Fprintln(os.Stderr, "grpcload: -target (or -serve) is required; -c and -conns must be at least 1")
		os.Exit(2)
	}
	clients := make([]testpb.ProbeClient, *conns)
	for i := range clients {
		cc, err := grpc.NewClient(*target, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			fmt.Fprintln(os.Stderr, "grpcload:", err)
			os.Exit(1)
		}
		defer cc.Close()
		clients[i] = testpb.NewProbeClient(cc)
	}
	start := time.Now()
	measureFrom, end := start.Add(*warmup), start.Add(*warmup+*dur)
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	var wg sync.WaitGroup
	for g := 0; g < *calls; g++ {
		wg.Add(1)
		go func(c testpb.ProbeClient) {
			defer wg.Done()
			var mine []time.Duration
			bad := 0
			in := &testpb.Item{Name: "bench", Amount: 1}
			for {
				t0 := time.Now()
				if t0.After(end) {
					break
				}
				_, err := c.Unary(context.Background(), in)
				if t0.Before(measureFrom) {
					continue
				}
				if err != nil {
					bad++
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			errs += bad
			mu.Unlock()
		}(clients[g%len(clients)])
	}
	wg.Wait()
	slices.Sort(lat)
	pct := func(p float64) int64 {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(float64(len(lat))*p))].Microseconds()
	}
	fmt.Printf("calls=%d errors=%d rps=%.0f p50=%d p90=%d p99=%d max=%d\n", len(lat), errs,
		float64(len(lat))/dur.Seconds(), pct(0.50), pct(0.90), pct(0.99), pct(1))
}

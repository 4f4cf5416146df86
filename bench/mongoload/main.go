// Command mongoload is the load generator of bench/mongodb.sh: -c Go driver
// connections, each running find({_id: k}) one after another (k cycling
// over -docs seeded ids) for a fixed time, then one line of results.
//
//	go run ./bench/mongoload -addr 127.0.0.1:27017 -seed -docs 1000
//	go run ./bench/mongoload -addr 127.0.0.1:27018 -c 4 -d 10s
//
// It prints (times in microseconds):
//
//	requests=N errors=N rps=N p50=N p90=N p99=N max=N
//
// -seed drops and fills the collection (directly, before measuring) and
// exits. The warm-up (-warmup) is sent but not counted.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func main() {
	addr := flag.String("addr", "", "host:port of the server or listener")
	conns := flag.Int("c", 4, "connections, one find in flight each")
	dur := flag.Duration("d", 10*time.Second, "how long to measure")
	warmup := flag.Duration("warmup", time.Second, "how long to send before measuring")
	n := flag.Int("docs", 1000, "documents seeded, ids 0..docs-1")
	seed := flag.Bool("seed", false, "drop and fill the collection, then exit")
	flag.Parse()
	ctx := context.Background()
	uri := fmt.Sprintf("mongodb://%s/?directConnection=true&appName=mongoload", *addr)
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetMaxPoolSize(uint64(*conns)).SetMinPoolSize(uint64(*conns)))
	if err != nil {
		fail(err)
	}
	defer c.Disconnect(ctx)
	coll := c.Database("hoop_bench").Collection("items")
	if *seed {
		_ = coll.Drop(ctx)
		docs := make([]any, *n)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "name", Value: fmt.Sprintf("item-%d", i)}, {Key: "price", Value: i % 97}}
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			fail(err)
		}
		return
	}
	run := func(d time.Duration) (lat []time.Duration, errs int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		end := time.Now().Add(d)
		for w := 0; w < *conns; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				var mine []time.Duration
				bad := 0
				for k := w; time.Now().Before(end); k += *conns {
					t0 := time.Now()
					var out bson.Raw
					err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: k % *n}}).Decode(&out)
					if err != nil {
						bad++
						continue
					}
					mine = append(mine, time.Since(t0))
				}
				mu.Lock()
				lat, errs = append(lat, mine...), errs+bad
				mu.Unlock()
			}(w)
		}
		wg.Wait()
		return lat, errs
	}
	run(*warmup)
	lat, errs := run(*dur)
	slices.Sort(lat)
	pct := func(p float64) int64 {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()
	}
	fmt.Printf("requests=%d errors=%d rps=%.0f p50=%d p90=%d p99=%d max=%d\n", len(lat), errs,
		float64(len(lat))/dur.Seconds(), pct(0.50), pct(0.90), pct(0.99), pct(1))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mongoload:", err)
	os.Exit(1)
}

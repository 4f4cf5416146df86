// Command mongoload is the load generator of bench/mongodb.sh: -c Go driver
// connections, each running find({_id: k}) one after another (k cycling
// over -docs seeded ids) for a fixed time, then one line of results.
//
//	go run ./bench/mongoload -addr 127.0.0.1:27017 -seed -docs 1000
//	go run ./bench/mongoload -addr 127.0.0.1:27018 -c 4 -d 10s
//
// It prints (times in microseconds):
//
//	requests=N errors=N rps=N p50=N p90=N p99=N max=N cpu=N.N
//
// (cpu: its own CPU time per find.) -seed drops and fills the collection (directly, before measuring) and
// exits. The warm-up (-warmup) is sent but not counted.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/hoophq/sidecar/bench/internal/loadgen"
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
	r := loadgen.Run(*conns, *dur, *warmup, func(w, k int) error {
		var out bson.Raw
		return coll.FindOne(ctx, bson.D{{Key: "_id", Value: k % *n}}).Decode(&out)
	})
	fmt.Println(r.Line())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mongoload:", err)
	os.Exit(1)
}

// Command mysqlload is the load generator of bench/mysql.sh: -c connections
// of the Go MySQL driver (github.com/go-sql-driver/mysql, text protocol),
// each sending one primary-key SELECT after another for a fixed time, then
// one line of results.
//
//	go run ./bench/mysqlload -addr 127.0.0.1:3306 -db bench -c 4 -d 10s -workload varied
//
// It prints (times in microseconds; cpu is its own CPU time per query):
//
//	requests=N errors=N rps=N p50=N p90=N p99=N max=N cpu=N.N
//
// Workloads: "point" sends SELECT c FROM sbtest WHERE id = 500 over and
// over; "varied" cycles through ids 1…-rows (the same shape, another
// constant each time). The table sbtest(id, k, c) is the script's.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/bench/internal/loadgen"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:3306", "host:port of the server or listener")
	user := flag.String("user", "root", "login user")
	password := flag.String("password", "", "password")
	db := flag.String("db", "", "database holding sbtest")
	conns := flag.Int("c", 4, "connections, one query in flight each")
	dur := flag.Duration("d", 10*time.Second, "how long to measure")
	warmup := flag.Duration("warmup", time.Second, "how long to send before measuring")
	workload := flag.String("workload", "point", "point or varied")
	rows := flag.Int("rows", 1000, "rows in sbtest, ids 1..rows")
	flag.Parse()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = *user, *password, "tcp", *addr, *db
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		fail(err)
	}
	pool := sql.OpenDB(connector)
	defer pool.Close()
	ctx := context.Background()
	cs := make([]*sql.Conn, *conns) // one pinned connection per worker
	for i := range cs {
		if cs[i], err = pool.Conn(ctx); err != nil {
			fail(err)
		}
	}
	texts := make([]string, *rows)
	for i := range texts {
		texts[i] = "SELECT c FROM sbtest WHERE id = " + strconv.Itoa(i+1)
	}
	if *workload != "varied" {
		for i := range texts {
			texts[i] = "SELECT c FROM sbtest WHERE id = 500"
		}
	}
	r := loadgen.Run(*conns, *dur, *warmup, func(w, k int) error {
		var c []byte
		return cs[w].QueryRowContext(ctx, texts[k%len(texts)]).Scan(&c)
	})
	fmt.Println(r.Line())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mysqlload:", err)
	os.Exit(1)
}

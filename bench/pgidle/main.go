// Command pgidle opens n PostgreSQL connections (logged in, then idle) and
// holds them until its standard input closes; bench/pgbench.sh uses it to
// measure the memory an idle proxied connection costs. It prints "open <n>"
// once every connection is logged in.
//
//	go run ./bench/pgidle -n 80 -dsn 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func main() {
	n := flag.Int("n", 80, "connections to open")
	dsn := flag.String("dsn", "", "connection string (libpq URL or key=value)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conns := make([]*pgconn.PgConn, 0, *n)
	for i := 0; i < *n; i++ {
		c, err := pgconn.Connect(ctx, *dsn)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pgidle: connection %d: %v\n", i+1, err)
			os.Exit(1)
		}
		conns = append(conns, c)
	}
	fmt.Printf("open %d\n", len(conns))
	_, _ = io.Copy(io.Discard, os.Stdin)
	for _, c := range conns {
		_ = c.Close(context.Background())
	}
}

// Command mssqlload is the load generator of bench/mssql.sh: -c go-mssqldb
// (v1.11.2, encrypt=disable) connections, each running one statement after
// another for a fixed time, then one line of results.
//
//	go run ./bench/mssqlload -addr 127.0.0.1:1433 -user sa -password … -seed -rows 1000
//	go run ./bench/mssqlload -addr 127.0.0.1:11433 -user sa -password … -w rpc -c 4 -d 10s
//
// Workloads (-w): "batch" sends SELECT name FROM items WHERE id = k as a
// SQLBatch, k cycling over the seeded ids (a new text each time; the
// Sidecar's analyzer answers by shape after the first); "rpc" sends
// SELECT name FROM items WHERE id = @p1 with k as sp_executesql.
//
// It prints (times in microseconds):
//
//	requests=N errors=N rps=N p50=N p90=N p99=N max=N
//
// -seed creates the database hoop_bench (when missing) and the table items
// with -rows rows, directly, then exits. The warm-up (-warmup) is sent but
// not counted.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	mssql "github.com/microsoft/go-mssqldb"

	"github.com/hoophq/sidecar/bench/internal/loadgen"
)

func main() {
	addr := flag.String("addr", "", "host:port of the server or listener")
	user := flag.String("user", "sa", "SQL Server login")
	password := flag.String("password", "", "its password")
	conns := flag.Int("c", 4, "connections, one statement in flight each")
	dur := flag.Duration("d", 10*time.Second, "how long to measure")
	warmup := flag.Duration("warmup", time.Second, "how long to send before measuring")
	work := flag.String("w", "batch", "workload: batch or rpc")
	rows := flag.Int("rows", 1000, "rows seeded, ids 1..rows")
	seed := flag.Bool("seed", false, "create hoop_bench.items with -rows rows, then exit")
	flag.Parse()
	dsn := func(db string) string {
		q := url.Values{"database": {db}, "encrypt": {"disable"}, "app name": {"mssqlload"}}
		return (&url.URL{Scheme: "sqlserver", User: url.UserPassword(*user, *password), Host: *addr, RawQuery: q.Encode()}).String()
	}
	ctx := context.Background()
	if *seed {
		if err := seedItems(ctx, dsn, *rows); err != nil {
			fail(err)
		}
		return
	}
	db, err := sql.Open("sqlserver", dsn("hoop_bench"))
	if err != nil {
		fail(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(*conns)
	db.SetMaxIdleConns(*conns)
	one := func(k int) error {
		var name string
		if *work == "rpc" {
			return db.QueryRowContext(ctx, "SELECT name FROM items WHERE id = @p1", k).Scan(&name)
		}
		return db.QueryRowContext(ctx, fmt.Sprintf("SELECT name FROM items WHERE id = %d", k)).Scan(&name)
	}
	var firstErr error
	var once sync.Once
	r := loadgen.Run(*conns, *dur, *warmup, func(_, k int) error {
		err := one(1 + k%*rows)
		if err != nil {
			once.Do(func() { firstErr = err })
		}
		return err
	})
	fmt.Println(r.Line())
	if firstErr != nil {
		fmt.Fprintln(os.Stderr, "mssqlload: first error:", firstErr)
	}
}

// seedItems creates hoop_bench (unless it exists) and fills items with ids
// 1..n, 500 rows per INSERT (SQL Server takes at most 1,000 per VALUES).
func seedItems(ctx context.Context, dsn func(string) string, n int) error {
	master, err := sql.Open("sqlserver", dsn("master"))
	if err != nil {
		return err
	}
	defer master.Close()
	if _, err := master.ExecContext(ctx, "CREATE DATABASE hoop_bench"); err != nil {
		var me mssql.Error
		if !errors.As(err, &me) || me.Number != 1801 { // 1801: it exists
			return err
		}
	}
	db, err := sql.Open("sqlserver", dsn("hoop_bench"))
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range []string{"DROP TABLE IF EXISTS items", "CREATE TABLE items (id int PRIMARY KEY, name nvarchar(100))"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	for lo := 1; lo <= n; lo += 500 {
		var vals []string
		for i := lo; i < lo+500 && i <= n; i++ {
			vals = append(vals, fmt.Sprintf("(%d, N'item-%d')", i, i))
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO items (id, name) VALUES "+strings.Join(vals, ", ")); err != nil {
			return err
		}
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mssqlload:", err)
	os.Exit(1)
}

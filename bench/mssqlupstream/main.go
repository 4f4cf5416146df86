// Command mssqlupstream is the upstream of bench/mssql.sh when no SQL
// Server is given: the suite's SQL Server stand-in (internal/tds/tdstest
// Mini: a login check, a pattern-matched in-memory table store, answers at
// once), on a loopback port, so the benchmark shows what the listener adds.
// It prints its host:port on the first line of stdout and serves until
// killed. It keeps no log of what it ran (a long benchmark would grow it).
//
//	go run ./bench/mssqlupstream -listen 127.0.0.1:0 -user sa -password 'Hoop-Bench1!'
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (port 0: a free one)")
	user := flag.String("user", "sa", "the login the stand-in accepts")
	password := flag.String("password", "Hoop-Bench1!", "its password")
	flag.Parse()
	m := &tdstest.Mini{Users: map[string]string{*user: *password}, NoLog: true}
	addr, err := m.Listen(*listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mssqlupstream:", err)
		os.Exit(1)
	}
	fmt.Println(addr)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	m.Close()
}

// Command mongoupstream is the upstream of bench/mongodb.sh when no MongoDB
// is given: FerretDB v1.24.2 (SQLite handler, data in a temporary folder)
// embedded in this process, on a loopback port; with -stub, a minimal
// in-memory stand-in that answers hello, find and insert (stub.go), to
// measure the listener's own cost. It prints its host:port on the first
// line of stdout and serves until killed.
//
//	go run ./bench/mongoupstream -listen 127.0.0.1:0 [-stub]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (port 0: a free one)")
	stub := flag.Bool("stub", false, "serve a minimal in-memory stand-in (stub.go) instead of FerretDB")
	flag.Parse()
	if *stub {
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			fail(err)
		}
		fmt.Println(ln.Addr().String())
		serveStub(ln)
		return
	}
	addr := *listen
	if host, port, err := net.SplitHostPort(addr); err == nil && port == "0" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			fail(err)
		}
		addr = net.JoinHostPort(host, fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))
		ln.Close()
	}
	dir, err := os.MkdirTemp("", "hoop-bench-ferretdb-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	f, err := ferretdb.New(&ferretdb.Config{Listener: ferretdb.ListenerConfig{TCP: addr}, Handler: "sqlite",
		SQLiteURL: "file:" + dir + "/", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		fail(err)
	}
	go func() { _ = f.Run(context.Background()) }()
	for i := 0; i < 300; i++ {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Println(addr)
	select {}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mongoupstream:", err)
	os.Exit(1)
}

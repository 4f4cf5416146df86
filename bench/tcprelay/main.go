// Command tcprelay is the Go ceiling of bench/http.sh, bench/pgbench.sh,
// bench/grpc.sh and bench/mysql.sh: a bare TCP relay with no parsing. It
// prints the address it listens on as its first line of output.
//
// -mode picks how it moves bytes (bench/pgbench.sh compares the three):
//
//	copy      one goroutine per direction, io.Copy (the default; Go's
//	          network poller: a read that finds nothing parks the goroutine)
//	read      one goroutine per direction, Read into a buffer and Write
//	          (the Sidecar's shape: a read that finds nothing, then a park)
//	wait      read, but after a short read the goroutine waits for
//	          readiness instead of reading again (no read finds nothing;
//	          for measuring only: it can miss a close that comes with the
//	          last bytes, see readloop.go)
//	blocking  one goroutine per direction on a blocking socket: each read
//	          blocks its OS thread in the kernel (no poller, no EAGAIN)
//	epoll     one OS thread for every connection, level-triggered epoll
//	          through golang.org/x/sys/unix, as pgbouncer's event loop
//
// blocking and epoll exist on Linux only.
//
//	go run ./bench/tcprelay -listen 127.0.0.1:0 -upstream 127.0.0.1:8080 [-mode epoll]
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (host:port)")
	upstream := flag.String("upstream", "", "address to relay to (host:port)")
	mode := flag.String("mode", "copy", "how bytes move: copy, read, wait, blocking or epoll")
	flag.Parse()
	if (*mode == "blocking" || *mode == "epoll") && runtime.GOOS != "linux" {
		fmt.Fprintf(os.Stderr, "tcprelay: -mode %s needs Linux\n", *mode)
		os.Exit(2)
	}
	var join func(c, u net.Conn)
	switch *mode {
	case "copy":
		join = copyRelay
	case "read":
		join = readRelay
	case "wait":
		join = waitRelay
	case "blocking":
		join = blockingRelay
	case "epoll":
		loop, err := newEpollLoop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "tcprelay:", err)
			os.Exit(1)
		}
		join = loop.add
	default:
		fmt.Fprintf(os.Stderr, "tcprelay: -mode %q: want copy, read, wait, blocking or epoll\n", *mode)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tcprelay:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().String())
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "tcprelay:", err)
			os.Exit(1)
		}
		go func() {
			u, err := net.Dial("tcp", *upstream)
			if err != nil {
				c.Close()
				return
			}
			join(c, u)
		}()
	}
}

// copyRelay joins c to u with io.Copy in each direction until either side
// closes.
func copyRelay(c, u net.Conn) {
	joinBy(c, u, func(dst, src net.Conn) { _, _ = io.Copy(dst, src) })
}

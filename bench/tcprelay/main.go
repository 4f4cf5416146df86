// Command tcprelay is the Go ceiling of bench/http.sh, bench/pgbench.sh and
// bench/mysql.sh:
// a bare TCP relay, one goroutine per direction copying with io.Copy, no
// parsing. It prints the address it listens on as its first line of output.
//
//	go run ./bench/tcprelay -listen 127.0.0.1:0 -upstream 127.0.0.1:8080
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (host:port)")
	upstream := flag.String("upstream", "", "address to relay to (host:port)")
	flag.Parse()
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
		go relay(c, *upstream)
	}
}

// relay joins c to a new connection to upstream until either side closes.
func relay(c net.Conn, upstream string) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer u.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(u, c)
		_ = u.(*net.TCPConn).CloseWrite()
		close(done)
	}()
	_, _ = io.Copy(c, u)
	_ = c.(*net.TCPConn).CloseWrite()
	<-done
}

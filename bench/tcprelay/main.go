// Command tcprelay is the bench scripts' Go ceiling: a bare TCP relay with
// one goroutine per direction (io.Copy), no parsing, no decisions. What it
// carries is what a goroutine-per-direction Go proxy can carry on this
// machine; the Sidecar's rows are compared with it. It prints the address it
// listens on as its first line of output.
//
//	go run ./bench/tcprelay -listen 127.0.0.1:0 -upstream 127.0.0.1:5432
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
	if *upstream == "" {
		fmt.Fprintln(os.Stderr, "tcprelay: -upstream is required")
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
		go relay(c, *upstream)
	}
}

// relay copies both ways between c and a new connection to upstream until
// either side ends, then closes both.
func relay(c net.Conn, upstream string) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tcprelay:", err)
		return
	}
	defer u.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(u, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, u); done <- struct{}{} }()
	<-done
}

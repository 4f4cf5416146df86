// Command tcprelay is the reference hop of bench/mysql.sh: a bare TCP relay
// (two io.Copy per connection, nothing parsed) in front of an upstream, so
// the benchmark can show what any extra process on the path costs on this
// machine next to what the Sidecar costs. It prints the address it listens
// on as its first line of output.
//
//	go run ./bench/tcprelay -listen 127.0.0.1:0 -upstream 127.0.0.1:3306
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
	upstream := flag.String("upstream", "127.0.0.1:3306", "address to relay to (host:port)")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tcprelay:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr())
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
// either side closes.
func relay(c net.Conn, upstream string) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer u.Close()
	go func() {
		io.Copy(u, c)
		u.Close()
	}()
	io.Copy(c, u)
}

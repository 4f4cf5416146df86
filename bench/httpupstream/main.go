// Command httpupstream is the upstream of bench/http.sh and
// bench/masking.sh: it answers every request with 200 and a short JSON
// body (or the file given with -body), logs nothing, and prints the address
// it listens on as its first line of output.
//
//	go run ./bench/httpupstream -listen 127.0.0.1:0 [-body users.json]
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (host:port)")
	bodyFile := flag.String("body", "", "a file whose bytes are the JSON body of every answer (default: a 57-byte body)")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "httpupstream:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().String())
	body := []byte(`{"items":[{"id":1,"name":"one"},{"id":2,"name":"two"}]}` + "\n")
	if *bodyFile != "" {
		if body, err = os.ReadFile(*bodyFile); err != nil {
			fmt.Fprintln(os.Stderr, "httpupstream:", err)
			os.Exit(1)
		}
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, "httpupstream:", err)
		os.Exit(1)
	}
}

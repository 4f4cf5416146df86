// Command upstream is a tiny HTTP service for `make run`: it answers every
// request with a JSON echo of what reached it, so a person can see which
// requests the Sidecar forwarded.
//
//	go run ./examples/upstream -listen 127.0.0.1:18081
package main

import (
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:18081", "address to listen on (host:port)")
	flag.Parse()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		slog.Info("upstream received", "method", r.Method, "path", r.URL.RequestURI(), "bytes", len(body))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"upstream": "example", "method": r.Method, "path": r.URL.RequestURI(), "body": string(body),
		})
	})
	srv := &http.Server{Addr: *listen, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	slog.Info("example upstream listening", "listen", *listen)
	if err := srv.ListenAndServe(); err != nil {
		slog.Error("example upstream stopped", "error", err)
	}
}

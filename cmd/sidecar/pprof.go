package main

import (
	"net/http"
	"net/http/pprof"
	"os"
)

// pprofEnv turns on Go's profiler at the admin address: with
// SIDECAR_PPROF=1 (and an admin block in the config) /debug/pprof/ serves
// CPU, heap, allocation, goroutine, mutex and block profiles
// (`go tool pprof http://ADMIN/debug/pprof/profile?seconds=20`). It is off by
// default: profiles show request data, and a CPU profile costs while it runs.
const pprofEnv = "SIDECAR_PPROF"

// pprofOn reports whether pprofEnv is "1" or "true".
func pprofOn() bool {
	v := os.Getenv(pprofEnv)
	return v == "1" || v == "true"
}

// mountPprof serves net/http/pprof's handlers under /debug/pprof/ on mux.
func mountPprof(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}

package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// reqInfo is filled by the auth wrappers so the request log can name who called.
type reqInfo struct{ who string }

type infoKey struct{}

func setWho(r *http.Request, who string) {
	if ri, ok := r.Context().Value(infoKey{}).(*reqInfo); ok {
		ri.who = who
	}
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logRequests logs one line per request: method, path (never the query or
// headers, so no token is logged), status, duration and the caller's name.
// Health probes (GET /healthz answered 200) log at debug: a load balancer or
// a start script polls them, and they would bury the requests that matter.
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &reqInfo{}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), infoKey{}, ri)))
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		attrs := []any{"method", r.Method, "path", r.URL.Path, "status", sw.status,
			"duration", time.Since(start).Round(time.Microsecond)}
		if ri.who != "" {
			attrs = append(attrs, "caller", ri.who)
		}
		level := slog.LevelInfo
		if r.URL.Path == "/healthz" && sw.status == http.StatusOK {
			level = slog.LevelDebug
		}
		log.Log(r.Context(), level, "http request", attrs...)
	})
}

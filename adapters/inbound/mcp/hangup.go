package mcp

import (
	"context"
	"net/http"
)

// On protocol versions before 2026-07-28 the go-sdk does not cancel a tool
// handler's context when the client hangs up (the handler context is
// detached from the HTTP request). A waiting approval_wait would then keep
// its watch alive, and keep the Control Plane read, until its timeout.
// captureRequest stores the HTTP request's context in the context the SDK
// hands down to tool handlers (values do flow through), and callerContext
// joins it back in, so a hang-up ends the wait at once.

type requestCtxKey struct{}

// captureRequest remembers r.Context() for the tool handlers of r.
func captureRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestCtxKey{}, r.Context())))
	})
}

// callerContext returns a context that ends when ctx ends, when the HTTP
// request that carried the call ends (the caller hung up), or when stopping
// ends (Shutdown). Call cancel when done.
func callerContext(ctx, stopping context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stops := []func() bool{context.AfterFunc(stopping, cancel)}
	if rc, ok := ctx.Value(requestCtxKey{}).(context.Context); ok {
		stops = append(stops, context.AfterFunc(rc, cancel))
	}
	return ctx, func() {
		for _, s := range stops {
			s()
		}
		cancel()
	}
}

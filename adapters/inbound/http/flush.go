package httplistener

import "net/http"

// flushWriter is the client's ResponseWriter with every body write flushed
// to the client at once, so the reverse proxy streams a response of known
// length as it comes without a separate early flush of its headers. Unwrap
// lets http.ResponseController reach the server's writer (Hijack for a 101
// Switching Protocols, Flush for trailers).
type flushWriter struct {
	http.ResponseWriter
}

// Write writes p to the client and flushes. A failed flush shows up as an
// error of the next write, as with ReverseProxy's own flushing.
func (w flushWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	if f, ok := w.ResponseWriter.(http.Flusher); ok && err == nil {
		f.Flush()
	}
	return n, err
}

// Unwrap returns the server's ResponseWriter (http.ResponseController).
func (w flushWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

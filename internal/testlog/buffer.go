// Package testlog holds what tests use to read the logs of code running in
// their process.
package testlog

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that many goroutines may write while a test
// reads it (a slog handler's writer, a server's log). The zero value is
// ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p; it never fails.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

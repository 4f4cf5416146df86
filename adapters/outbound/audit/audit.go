package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/hoophq/sidecar/ports"
)

// Sink is an audit sink that must be closed at shutdown.
type Sink interface {
	ports.AuditSink
	// Close flushes what was recorded and releases the file. Record after
	// Close drops the event.
	Close() error
}

// Stdout is the path that selects standard output.
const Stdout = "-"

// Writer writes one JSON object per ports.AuditEvent, each on its own line,
// with a single write per event, so lines never interleave. It is safe for
// concurrent use.
type Writer struct {
	log *slog.Logger

	mu      sync.Mutex
	w       io.Writer
	file    *os.File // nil for stdout or a caller's io.Writer
	closed  bool
	failing bool
}

// Open returns a Writer appending to the file at path, created with mode 0600
// when missing (an existing file keeps its mode), or writing to stdout when
// path is "-". log receives write failures (nil: discarded). The error names
// the path.
func Open(path string, log *slog.Logger) (*Writer, error) {
	if path == "" {
		return nil, errors.New("audit: no file given (use \"-\" for stdout)")
	}
	if path == Stdout {
		return NewWriter(os.Stdout, log), nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: opening %s: %w", path, err)
	}
	w := NewWriter(f, log)
	w.file = f
	return w, nil
}

// NewWriter returns a Writer on w (not closed by Close). log receives write
// failures (nil: discarded).
func NewWriter(w io.Writer, log *slog.Logger) *Writer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Writer{w: w, log: log}
}

// Record writes e as one JSON line. A write failure is logged once (and once
// more when writes work again); the event is then lost, never the statement.
func (w *Writer) Record(e ports.AuditEvent) {
	b, err := json.Marshal(e)
	if err != nil { // AuditEvent holds only strings and a time: cannot happen
		w.log.Error("audit event could not be encoded", "error", err)
		return
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if _, err := w.w.Write(b); err != nil {
		if !w.failing {
			w.log.Error("audit trail write failed; events are being lost", "error", err)
		}
		w.failing = true
		return
	}
	if w.failing {
		w.log.Info("audit trail writes work again")
		w.failing = false
	}
}

// Close syncs and closes the file (a no-op for stdout and caller writers).
// It is safe to call more than once.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.file == nil {
		return nil
	}
	serr := w.file.Sync()
	cerr := w.file.Close()
	if cerr != nil {
		return fmt.Errorf("audit: closing %s: %w", w.file.Name(), cerr)
	}
	if serr != nil {
		return fmt.Errorf("audit: flushing %s: %w", w.file.Name(), serr)
	}
	return nil
}

// Discard is the sink used without an audit block: it drops every event.
var Discard Sink = discard{}

type discard struct{}

func (discard) Record(ports.AuditEvent) {}
func (discard) Close() error            { return nil }

package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hoophq/sidecar/internal/logging"
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

// DefaultQueue is how many events wait for the writer before allow lines
// are dropped (Options.Queue).
const DefaultQueue = 4096

// batchWait is how long the writer lets events gather after the first one
// of a batch before it writes them, in one write.
const batchWait = 5 * time.Millisecond

// Options tune a Writer. The zero value is the default.
type Options struct {
	// Log receives write failures and drops (nil: discarded).
	Log *slog.Logger
	// SkipAllows records only decisions other than plain allows (config
	// audit.skip_allows): a statement no rule covered leaves no line.
	SkipAllows bool
	// Queue is how many events may wait for the writer (0: DefaultQueue).
	Queue int
	// OnDrop is called once for each allow line dropped because the queue
	// was full (the metric hoop_sidecar_audit_dropped_total).
	OnDrop func()
}

// Writer writes one JSON object per ports.AuditEvent, each on its own line.
// It is safe for concurrent use and keeps the statement's path free of the
// file: Record queues the event, and one goroutine encodes what gathered
// and writes it in one write (after at most batchWait), so lines never
// interleave and stay in the order they were recorded.
//
// When the writer cannot keep up (a slow or stalled disk) and the queue is
// full, an allow line is dropped and counted (Dropped, Options.OnDrop, a
// warning in the log at most every 10 s); every other decision (denials,
// approvals claimed, settles, client_gone, wait_canceled) is never dropped:
// its Record waits for room in the queue. Close writes everything queued.
type Writer struct {
	log        *slog.Logger
	skipAllows bool
	onDrop     func()

	w    io.Writer
	file *os.File // nil for stdout or a caller's io.Writer

	queue   chan ports.AuditEvent
	flushes chan chan struct{}
	stop    chan struct{}
	done    chan struct{}
	closing sync.Once
	closed  atomic.Bool
	dropped atomic.Uint64

	// Owned by the writer goroutine.
	failing    bool
	loggedDrop uint64
	lastDrop   time.Time
}

// Open returns a Writer appending to the file at path, created with mode 0600
// when missing (an existing file keeps its mode), or writing to stdout when
// path is "-". The error names the path.
func Open(path string, opts Options) (*Writer, error) {
	if path == "" {
		return nil, errors.New("audit: no file given (use \"-\" for stdout)")
	}
	if path == Stdout {
		return NewWriter(os.Stdout, opts), nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: opening %s: %w", path, err)
	}
	w := NewWriter(f, opts)
	w.file = f
	return w, nil
}

// NewWriter returns a Writer on w (not closed by Close).
func NewWriter(w io.Writer, opts Options) *Writer {
	log := logging.OrDiscard(opts.Log)
	n := opts.Queue
	if n <= 0 {
		n = DefaultQueue
	}
	wr := &Writer{log: log, skipAllows: opts.SkipAllows, onDrop: opts.OnDrop, w: w,
		queue: make(chan ports.AuditEvent, n), flushes: make(chan chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{})}
	go wr.run()
	return wr
}

// Record queues e to be written as one JSON line. It does not wait for the
// file. An allow is dropped (and counted) when the queue is full; any other
// decision waits for room. A write failure is logged once (and once more
// when writes work again); the events of a failed write are lost, never the
// statement.
func (w *Writer) Record(e ports.AuditEvent) {
	if w.closed.Load() {
		return
	}
	if e.Decision == "allow" {
		if w.skipAllows {
			return
		}
		select {
		case w.queue <- e:
		default:
			w.dropped.Add(1)
			if w.onDrop != nil {
				w.onDrop()
			}
		}
		return
	}
	select {
	case w.queue <- e:
	case <-w.stop:
	}
}

// SkipsAllows reports whether plain allows are left out (Options.SkipAllows;
// ports.AllowSkipper): the gate then does not render their statements.
func (w *Writer) SkipsAllows() bool { return w.skipAllows }

// Dropped returns how many allow lines were dropped because the queue was
// full.
func (w *Writer) Dropped() uint64 { return w.dropped.Load() }

// Flush returns once every event recorded before it is written (or its
// write failed). After Close it returns at once.
func (w *Writer) Flush() {
	ack := make(chan struct{})
	select {
	case w.flushes <- ack:
		<-ack
	case <-w.done:
	}
}

// run is the writer goroutine: it sleeps until an event comes, lets more
// gather for batchWait, then writes them all.
func (w *Writer) run() {
	defer close(w.done)
	bw := bufio.NewWriterSize(w.w, 64<<10)
	enc := json.NewEncoder(bw)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case e := <-w.queue:
			w.encode(enc, e)
			timer.Reset(batchWait)
			select {
			case <-timer.C:
			case ack := <-w.flushes:
				timer.Stop()
				w.drain(enc, bw)
				close(ack)
				continue
			case <-w.stop:
				timer.Stop()
				w.drain(enc, bw)
				return
			}
			w.drain(enc, bw)
		case ack := <-w.flushes:
			w.drain(enc, bw)
			close(ack)
		case <-w.stop:
			w.drain(enc, bw)
			return
		}
	}
}

// drain encodes what is queued now and writes the batch.
func (w *Writer) drain(enc *json.Encoder, bw *bufio.Writer) {
	for n := len(w.queue); n > 0; n-- {
		w.encode(enc, <-w.queue)
	}
	if err := bw.Flush(); err != nil {
		if !w.failing {
			w.log.Error("audit trail write failed; events are being lost", "error", err)
		}
		w.failing = true
		bw.Reset(w.w) // the batch is lost; the next one tries again
	} else if w.failing && bw.Buffered() == 0 {
		w.log.Info("audit trail writes work again")
		w.failing = false
	}
	if d := w.dropped.Load(); d > w.loggedDrop && time.Since(w.lastDrop) >= 10*time.Second {
		w.log.Warn("audit trail cannot keep up; allow lines dropped (denials and approvals are never dropped)",
			"dropped_total", d, "queue", cap(w.queue))
		w.loggedDrop, w.lastDrop = d, time.Now()
	}
}

func (w *Writer) encode(enc *json.Encoder, e ports.AuditEvent) {
	// Encode writes the line and its newline in one call to the buffer.
	if err := enc.Encode(e); err != nil { // AuditEvent holds only strings and a time: cannot happen
		w.log.Error("audit event could not be encoded", "error", err)
	}
}

// Close writes what is queued, then syncs and closes the file (stdout and
// caller writers are left open). It is safe to call more than once.
func (w *Writer) Close() error {
	var err error
	w.closing.Do(func() {
		w.closed.Store(true)
		close(w.stop)
		<-w.done
		if w.file == nil {
			return
		}
		serr := w.file.Sync()
		if cerr := w.file.Close(); cerr != nil {
			err = fmt.Errorf("audit: closing %s: %w", w.file.Name(), cerr)
		} else if serr != nil {
			err = fmt.Errorf("audit: flushing %s: %w", w.file.Name(), serr)
		}
	})
	return err
}

// Discard is the sink used without an audit block: it drops every event.
var Discard Sink = discard{}

type discard struct{}

func (discard) Record(ports.AuditEvent) {}
func (discard) Close() error            { return nil }
func (discard) SkipsAllows() bool       { return true }

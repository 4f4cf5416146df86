package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/ports"
)

func event(i int) ports.AuditEvent {
	return ports.AuditEvent{Time: time.Date(2026, 9, 29, 14, 2, 11, 0, time.UTC), Listener: "pg", Protocol: "postgres",
		Client: "127.0.0.1:5000", Fingerprint: "v1:abc", Decision: "deny_approval", Rule: "db-destructive",
		ApprovalID: fmt.Sprintf("ap-%04d", i), Status: "PENDING"}
}

func readLines(t *testing.T, r io.Reader) []ports.AuditEvent {
	t.Helper()
	var out []ports.AuditEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var e ports.AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %q is not one JSON object: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func TestFileConcurrentRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, each = 20, 100
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				w.Record(event(g*each + i))
			}
		}(g)
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	f, _ := os.Open(path)
	defer f.Close()
	got := readLines(t, f)
	if len(got) != goroutines*each {
		t.Fatalf("%d lines, want %d", len(got), goroutines*each)
	}
	ids := map[string]bool{}
	for _, e := range got {
		ids[e.ApprovalID] = true
	}
	if len(ids) != goroutines*each {
		t.Fatalf("%d distinct events, want %d", len(ids), goroutines*each)
	}
	if want := event(7); !ids[want.ApprovalID] {
		t.Fatal("event 7 missing")
	}
	for _, e := range got[:1] {
		want := event(0)
		want.ApprovalID = e.ApprovalID
		if !reflect.DeepEqual(e, want) {
			t.Fatalf("read back %+v, want %+v", e, want)
		}
	}
}

func TestFileAppendsAndDropsAfterClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := os.WriteFile(path, []byte(`{"decision":"allow","time":"2026-01-01T00:00:00Z","listener":"old","protocol":"http"}`+"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(event(1))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Record(event(2)) // after Close: dropped, no panic
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	b, _ := os.ReadFile(path)
	got := readLines(t, bytes.NewReader(b))
	if len(got) != 2 || got[0].Listener != "old" || got[1].ApprovalID != "ap-0001" {
		t.Fatalf("file holds %+v, want the old line then ap-0001", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("an existing file's mode changed to %v", fi.Mode().Perm())
	}
}

func TestOmitsEmptyFields(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, Options{})
	w.Record(ports.AuditEvent{Time: time.Date(2026, 9, 29, 14, 2, 11, 0, time.UTC), Listener: "pg", Protocol: "postgres", Decision: "allow"})
	w.Flush()
	want := `{"time":"2026-09-29T14:02:11Z","listener":"pg","protocol":"postgres","decision":"allow"}` + "\n"
	if buf.String() != want {
		t.Fatalf("line = %s want %s", buf.String(), want)
	}
}

func TestStdout(t *testing.T) {
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = pw
	w, err := Open(Stdout, Options{})
	os.Stdout = old
	if err != nil {
		t.Fatal(err)
	}
	w.Record(event(3))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := pw.Write([]byte{}); err != nil {
		t.Fatalf("Close closed stdout: %v", err)
	}
	pw.Close()
	got := readLines(t, r)
	if len(got) != 1 || got[0].ApprovalID != "ap-0003" {
		t.Fatalf("stdout got %+v", got)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open("", Options{}); err == nil {
		t.Fatal("Open accepted an empty path")
	}
	bad := filepath.Join(t.TempDir(), "no-such-dir", "audit.jsonl")
	_, err := Open(bad, Options{})
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("err = %v, want it to name %s", err, bad)
	}
}

type failingWriter struct{ fail bool }

func (f *failingWriter) Write(b []byte) (int, error) {
	if f.fail {
		return 0, errors.New("disk full")
	}
	return len(b), nil
}

func TestWriteFailureLoggedOnce(t *testing.T) {
	var logs bytes.Buffer
	fw := &failingWriter{fail: true}
	w := NewWriter(fw, Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	for i := 0; i < 5; i++ {
		w.Record(event(i))
		w.Flush() // each in its own write
	}
	if n := strings.Count(logs.String(), "disk full"); n != 1 {
		t.Fatalf("failure logged %d times, want once:\n%s", n, logs.String())
	}
	fw.fail = false
	w.Record(event(9))
	w.Flush()
	if !strings.Contains(logs.String(), "work again") {
		t.Fatalf("recovery not logged:\n%s", logs.String())
	}
}

func TestDiscard(t *testing.T) {
	var s ports.AuditSink = Discard
	s.Record(event(1))
	if err := Discard.Close(); err != nil {
		t.Fatal(err)
	}
}

// stallWriter blocks every Write until release is closed; entered is closed
// when the first Write begins.
type stallWriter struct {
	entered, release chan struct{}
	once             sync.Once
	mu               sync.Mutex
	buf              bytes.Buffer
}

func newStallWriter() *stallWriter {
	return &stallWriter{entered: make(chan struct{}), release: make(chan struct{})}
}

func (s *stallWriter) Write(b []byte) (int, error) {
	s.once.Do(func() { close(s.entered) })
	<-s.release
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(b)
}

func allow(i int) ports.AuditEvent {
	e := event(i)
	e.Decision, e.ApprovalID, e.Status, e.Rule, e.Fingerprint = "allow", "", "", "", ""
	e.Statement = fmt.Sprintf("SELECT %d", i)
	return e
}

// While the disk stalls, allow lines beyond the queue are dropped and
// counted; denials wait for room and are all written once it moves again.
func TestStalledWriterDropsAllowsNeverDenials(t *testing.T) {
	sw := newStallWriter()
	var onDrop sync.WaitGroup
	const queue, extra, denials = 4, 6, 3
	onDrop.Add(extra)
	w := NewWriter(sw, Options{Queue: queue, OnDrop: onDrop.Done})
	w.Record(event(100)) // picked up by the writer, which then stalls in Write
	<-sw.entered
	for i := 0; i < queue+extra; i++ {
		w.Record(allow(i))
	}
	onDrop.Wait() // OnDrop ran once per dropped line
	if got := w.Dropped(); got != extra {
		t.Fatalf("Dropped() = %d, want %d (queue %d full, %d more allows)", got, extra, queue, extra)
	}
	var recorded sync.WaitGroup
	for i := 0; i < denials; i++ {
		recorded.Add(1)
		go func(i int) { defer recorded.Done(); w.Record(event(200 + i)) }(i) // waits for room
	}
	close(sw.release)
	recorded.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readLines(t, &sw.buf)
	var allows, denied int
	ids := map[string]bool{}
	for _, e := range got {
		if e.Decision == "allow" {
			allows++
		} else {
			denied++
			ids[e.ApprovalID] = true
		}
	}
	if allows != queue || denied != 1+denials {
		t.Fatalf("written: %d allows (want %d), %d denials (want %d): %+v", allows, queue, denied, 1+denials, got)
	}
	for i := 0; i < denials; i++ {
		if id := event(200 + i).ApprovalID; !ids[id] {
			t.Fatalf("denial %s was dropped", id)
		}
	}
	if w.Dropped() != extra {
		t.Fatalf("Dropped() = %d after the stall, want %d", w.Dropped(), extra)
	}
}

// Close writes every event queued before it, without a Flush.
func TestCloseFlushesQueued(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 500
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			w.Record(allow(i))
		} else {
			w.Record(event(i))
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	got := readLines(t, bytes.NewReader(b))
	if len(got) != n {
		t.Fatalf("%d lines after Close, want %d", len(got), n)
	}
	for i, e := range got { // in the order recorded
		if want := fmt.Sprintf("SELECT %d", i); i%2 == 0 && e.Statement != want {
			t.Fatalf("line %d: %+v, want the allow of %q", i, e, want)
		}
		if want := event(i).ApprovalID; i%2 == 1 && e.ApprovalID != want {
			t.Fatalf("line %d: %+v, want %s", i, e, want)
		}
	}
}

func TestSkipAllows(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, Options{SkipAllows: true})
	w.Record(allow(1))
	w.Record(event(2))
	w.Record(allow(3))
	w.Flush()
	got := readLines(t, bytes.NewReader(buf.Bytes()))
	if len(got) != 1 || got[0].ApprovalID != "ap-0002" {
		t.Fatalf("skip_allows wrote %+v, want only the denial ap-0002", got)
	}
	if w.Dropped() != 0 {
		t.Fatalf("skipped allows counted as dropped: %d", w.Dropped())
	}
	w.Close()
}

// TestSkipsAllows: the gate asks the sink whether allows are kept
// (ports.AllowSkipper) before it renders an allowed statement's text.
func TestSkipsAllows(t *testing.T) {
	for _, c := range []struct {
		name string
		sink ports.AuditSink
		want bool
	}{
		{"skip_allows", NewWriter(io.Discard, Options{SkipAllows: true}), true},
		{"default", NewWriter(io.Discard, Options{}), false},
		{"Discard", Discard, true},
	} {
		sk, ok := c.sink.(ports.AllowSkipper)
		if !ok || sk.SkipsAllows() != c.want {
			t.Errorf("%s: AllowSkipper %v, SkipsAllows want %v", c.name, ok, c.want)
		}
		if cl, ok := c.sink.(Sink); ok {
			cl.Close()
		}
	}
}

// BenchmarkRecordAllow is the cost of an allow on the statement's path.
func BenchmarkRecordAllow(b *testing.B) {
	w := NewWriter(io.Discard, Options{})
	defer w.Close()
	e := allow(1)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w.Record(e)
		}
	})
}

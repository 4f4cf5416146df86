package connbuf

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hoophq/sidecar/internal/listenertest"
)

// held counts the buffers taken from the pool and not given back: an idle
// Reader or a flushed Writer holds none.
var held atomic.Int64

func init() { taken = func(d int64) { held.Add(d) } }

// wrapped is a connection wrapper like supervisor's counted connections.
type wrapped struct{ net.Conn }

func (w wrapped) NetConn() net.Conn { return w.Conn }

// Idle readers of TCP connections (plain or behind a NetConn wrapper) wait
// without a buffer, and read what arrives after the wait.
func TestIdleReadersHoldNoBuffer(t *testing.T) {
	const conns = 50
	before := held.Load()
	var writers []net.Conn
	results := make(chan error, conns)
	for i := range conns {
		c, s := listenertest.TCPPair(t)
		writers = append(writers, c)
		var rd io.Reader = s
		if i%2 == 1 {
			rd = wrapped{s}
		}
		r := NewReader(rd)
		if r.raw == nil {
			t.Fatalf("reader %d: no RawConn found through %T", i, rd)
		}
		go func() {
			p, err := r.Peek(5)
			if err == nil && string(p) != "hello" {
				err = errors.New("read " + string(p))
			}
			results <- err
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for held.Load() != before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the readers are parked by now
	if n := held.Load() - before; n != 0 {
		t.Fatalf("%d idle readers hold %d buffers, want 0", conns, n)
	}
	for _, c := range writers {
		c.Write([]byte("hel"))
		c.Write([]byte("lo"))
	}
	for range conns {
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	}
}

// A flushed Writer holds no buffer, and what it wrote arrives in order.
func TestWriterGivesBackItsBuffer(t *testing.T) {
	c, s := listenertest.TCPPair(t)
	before := held.Load()
	w := NewWriter(c)
	want := bytes.Repeat([]byte("0123456789"), 10000) // 100,000 bytes, > Size
	go func() {
		w.Write(want[:10])
		w.Write(want[10:40000])
		w.ReadFrom(bytes.NewReader(want[40000:]))
		w.Flush()
		if n := held.Load() - before; n != 0 {
			t.Errorf("a flushed writer holds %d buffers", n)
		}
		c.Close()
	}()
	got, err := io.ReadAll(s)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes (%v), want %d equal bytes", len(got), err, len(want))
	}
}

// A deadline ends a Peek with os.ErrDeadlineExceeded, bytes that arrive
// later are read, and the peer's close is io.EOF.
func TestDeadlineAndEOF(t *testing.T) {
	c, s := listenertest.TCPPair(t)
	r := NewReader(s)
	s.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := r.Peek(1); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Peek past the deadline: %v", err)
	}
	s.SetReadDeadline(time.Time{})
	c.Write([]byte("abc"))
	c.Close()
	got, err := io.ReadAll(r)
	if err != nil || string(got) != "abc" {
		t.Fatalf("ReadAll = %q, %v", got, err)
	}
	if _, err := r.Peek(1); err != io.EOF {
		t.Fatalf("Peek after the close: %v, want io.EOF", err)
	}
}

// FuzzReader drives a Reader and a bufio.Reader of the same bytes, sent in
// the same chunks over TCP, with the same calls, and compares what they
// return.
func FuzzReader(f *testing.F) {
	f.Add([]byte("hello, world"), []byte{1, 5, 2, 3, 0, 7})
	f.Add(bytes.Repeat([]byte{0xAB}, 40000), []byte{200, 100, 3, 255, 254, 1})
	f.Fuzz(func(t *testing.T, data, ops []byte) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		c, s := listenertest.TCPPair(t)
		go func() {
			rng := rand.New(rand.NewPCG(uint64(len(data)), 7))
			for rest := data; len(rest) > 0; {
				n := min(len(rest), 1+rng.IntN(9000))
				c.Write(rest[:n])
				rest = rest[n:]
			}
			c.Close()
		}()
		ours := NewReader(s)
		ref := bufio.NewReaderSize(bytes.NewReader(data), Size)
		for i, op := range ops {
			n := int(op) * 173 % (Size + 2)
			switch i % 3 {
			case 0:
				a, errA := ours.Peek(n)
				b, errB := ref.Peek(n)
				if !bytes.Equal(a, b) || (errA == nil) != (errB == nil) {
					t.Fatalf("Peek(%d) = %d bytes, %v; bufio: %d bytes, %v", n, len(a), errA, len(b), errB)
				}
			case 1:
				a, errA := ours.Discard(n)
				b, errB := ref.Discard(n)
				if a != b || (errA == nil) != (errB == nil) {
					t.Fatalf("Discard(%d) = %d, %v; bufio: %d, %v", n, a, errA, b, errB)
				}
			case 2:
				a, errA := io.ReadFull(ours, make([]byte, n))
				b, errB := io.ReadFull(ref, make([]byte, n))
				if a != b || (errA == nil) != (errB == nil) {
					t.Fatalf("ReadFull(%d) = %d, %v; bufio: %d, %v", n, a, errA, b, errB)
				}
			}
		}
	})
}

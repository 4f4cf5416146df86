package mongodb

import (
	"bytes"
	"encoding/binary"
	"io"
	"log/slog"
	"runtime"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/app"
)

// exhaustStream is an upstream answering request 2 with n exhaust
// replies (moreToCome but the last), each a batch of the same documents,
// made one at a time as they are read; it samples the heap as it goes.
type exhaustStream struct {
	more, last []byte // the two reply templates
	n, i       int
	cur        *bytes.Reader
	peak       uint64
}

func (u *exhaustStream) Read(p []byte) (int, error) {
	for u.cur == nil || u.cur.Len() == 0 {
		if u.i == u.n {
			return 0, io.EOF
		}
		msg := u.more
		if u.i == u.n-1 {
			msg = u.last
		}
		msg = bytes.Clone(msg)
		to := int32(1000 + u.i - 1)
		if u.i == 0 {
			to = 2
		}
		binary.LittleEndian.PutUint32(msg[4:], uint32(1000+u.i))
		binary.LittleEndian.PutUint32(msg[8:], uint32(to))
		if u.i%100 == 0 {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			u.peak = max(u.peak, ms.HeapInuse)
		}
		u.i++
		u.cur = bytes.NewReader(msg)
	}
	return u.cur.Read(p)
}

// clearCheck is a client that keeps nothing: it counts the replies'
// bytes and whether an email went by in clear.
type clearCheck struct {
	bytes int
	clear bool
}

func (c *clearCheck) Write(p []byte) (int, error) {
	c.bytes += len(p)
	c.clear = c.clear || bytes.Contains(p, []byte("alice@"))
	return len(p), nil
}

// A masked result of 1,000,000 documents (1,000 batches of an exhaust
// cursor, the plan following the stream) is masked one reply at a time:
// every document reaches the client masked, and the heap stays within a
// few batches (the result whole is over 60 MB).
func TestMaskMillionDocumentsFlatMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("1,000,000 documents: not with -short or -race")
	}
	const batches, perBatch = 1000, 1000
	row := doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendInt32("_id", 1).AppendString("email", "alice@example.com").AppendString("name", "Alice")
	})
	rows := make([]bsoncore.Document, perBatch)
	for i := range rows {
		rows[i] = row
	}
	body := cursorReply("nextBatch", 77, rows...)
	up := &exhaustStream{n: batches,
		more: (&wire.Msg{Flags: wire.MoreToCome, Body: body}).Append(nil),
		last: (&wire.Msg{Body: cursorReply("nextBatch", 0, rows...)}).Append(nil)}
	client := &clearCheck{}
	audit := &auditLines{}
	l := maskListener(t, audit, piiRule)
	job := maskSource{set: l.Settings(), st: app.Statement{}}.job()
	s := &session{l: l, log: slog.New(slog.DiscardHandler), client: writerConn{w: client}, up: fuzzConn{r: up},
		pending: map[int32]*pending{2: {mask: job}}, cursors: &cursors{}}
	s.relay()
	if up.i != batches || client.clear {
		t.Fatalf("%d batches relayed (want %d); an email in clear: %v", up.i, batches, client.clear)
	}
	if m := audit.masking(); len(m) != batches || m[batches-1].Masked["pii"] != perBatch {
		t.Fatalf("%d masked lines, want one per batch of %d", len(m), perBatch)
	}
	if up.peak > 32<<20 {
		t.Fatalf("heap in use reached %d MiB while relaying", up.peak>>20)
	}
	t.Logf("%d MB sent, heap in use at most %d MiB", client.bytes>>20, up.peak>>20)
}

// writerConn is a client connection writing to w.
type writerConn struct {
	fuzzConn
	w io.Writer
}

func (c writerConn) Write(p []byte) (int, error) { return c.w.Write(p) }

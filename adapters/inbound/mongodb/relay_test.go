package mongodb

import (
	"bytes"
	"log/slog"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// An exhaust stream: the upstream's replies with moreToCome, each answering
// the previous reply, reach the client whole and in order, byte for byte;
// the hello reply before them sets maxMessageSizeBytes.
func TestRelayStreamsExhaustReplies(t *testing.T) {
	hello := doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendDouble("ok", 1).AppendInt32("maxMessageSizeBytes", 1<<20)
	})
	batch := func(n int32) bsoncore.Document {
		return doc(func(b *bsoncore.DocumentBuilder) {
			b.AppendDouble("ok", 1).AppendInt32("n", n).AppendString("pad", string(bytes.Repeat([]byte{'x'}, 100<<10)))
		})
	}
	in := [][]byte{
		(&wire.Msg{Header: wire.Header{RequestID: 100, ResponseTo: 1}, Body: hello}).Append(nil),
		(&wire.Msg{Header: wire.Header{RequestID: 101, ResponseTo: 2}, Flags: wire.MoreToCome, Body: batch(1)}).Append(nil),
		(&wire.Msg{Header: wire.Header{RequestID: 102, ResponseTo: 101}, Flags: wire.MoreToCome | wire.ChecksumPresent, Body: batch(2)}).Append(nil),
		(&wire.Msg{Header: wire.Header{RequestID: 103, ResponseTo: 102}, Body: batch(3)}).Append(nil),
	}
	var out bytes.Buffer
	s := &session{log: slog.New(slog.DiscardHandler), client: fuzzConn{w: &out},
		up: fuzzConn{r: bytes.NewReader(bytes.Join(in, nil))}, pending: map[int32]*pending{1: {hello: true}}}
	s.relay()
	if !bytes.Equal(out.Bytes(), bytes.Join(in, nil)) {
		t.Fatalf("the client got %d bytes, want the %d the upstream sent, unchanged", out.Len(), len(bytes.Join(in, nil)))
	}
	if s.max() != 1<<20 {
		t.Fatalf("maxMessageSizeBytes %d, want the hello's %d", s.max(), 1<<20)
	}
}

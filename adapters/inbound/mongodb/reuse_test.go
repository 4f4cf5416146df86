package mongodb

import (
	"bytes"
	"log/slog"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// A client that reuses one requestID (some minimal clients send 0 on every
// request): after a moreToCome insert, which no server answers, the answer
// to its next request under the same id must reach it, not be dropped as
// the answer to the moreToCome (the client would wait forever).
func TestReplyToReusedRequestIDAfterMoreToComeReachesClient(t *testing.T) {
	l := testListener(t)
	insert := doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendString("insert", "t").AppendString("$db", "test")
	})
	find := doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendString("find", "t").AppendString("$db", "test")
	})
	in := append(opMsg(0, wire.MoreToCome, insert), opMsg(0, 0, find)...)
	var out, fwd bytes.Buffer
	s := testSession(l, in, &out, &fwd)
	if err := s.serve(); err == nil {
		t.Fatal("serve ended without the end of the client's input")
	}
	if !bytes.Equal(fwd.Bytes(), in) {
		t.Fatalf("forwarded %d bytes, want both requests (%d bytes) unchanged", fwd.Len(), len(in))
	}
	answer := (&wire.Msg{Header: wire.Header{RequestID: 500, ResponseTo: 0}, Body: doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendDouble("ok", 1)
	})}).Append(nil)
	var got bytes.Buffer
	r := &session{log: slog.New(slog.DiscardHandler), client: fuzzConn{w: &got}, up: fuzzConn{r: bytes.NewReader(answer)},
		pending: s.pending, noReply: s.noReply, noReplySet: s.noReplySet, noReplyNext: s.noReplyNext}
	r.relay()
	if !bytes.Equal(got.Bytes(), answer) {
		t.Fatalf("the client got %d bytes, want the find's answer (%d bytes)", got.Len(), len(answer))
	}
}

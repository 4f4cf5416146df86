package mongodb

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// fuzzConn is a client or upstream connection for the fuzz target: reads
// come from r (EOF after), writes are kept in w (or discarded), deadlines
// are ignored.
type fuzzConn struct {
	r io.Reader
	w *bytes.Buffer
}

func (c fuzzConn) Read(b []byte) (int, error) {
	if c.r == nil {
		return 0, io.EOF
	}
	return c.r.Read(b)
}
func (c fuzzConn) Write(b []byte) (int, error) {
	if c.w != nil {
		c.w.Write(b)
	}
	return len(b), nil
}
func (fuzzConn) Close() error                     { return nil }
func (fuzzConn) LocalAddr() net.Addr              { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 27017} }
func (fuzzConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000} }
func (fuzzConn) SetDeadline(time.Time) error      { return nil }
func (fuzzConn) SetReadDeadline(time.Time) error  { return nil }
func (fuzzConn) SetWriteDeadline(time.Time) error { return nil }

// testListener is a return-mode listener on the in-memory Control Plane
// with an approval rule (DELETE, DROP) and a policy rule (SERVER_JS), so
// commands reach every verdict.
func testListener(tb testing.TB) *app.Listener {
	tb.Helper()
	s := app.ListenerSettings{Name: "mongo", Protocol: "mongodb", Mode: app.ModeReturn, SpendOn: ports.SpendOnSent,
		Approvals: []domain.ApprovalRule{{Name: "destructive", Match: domain.Match{Actions: []string{"DELETE", "DROP"}}}},
		Policies:  []domain.PolicyRule{{Name: "no-js", Match: domain.Match{Actions: []string{"SERVER_JS"}}}}}
	for _, m := range []*domain.Match{&s.Approvals[0].Match, &s.Policies[0].Match} {
		if err := m.Compile(); err != nil {
			tb.Fatal(err)
		}
	}
	return app.NewCore(app.CoreOptions{Sidecar: "fuzz", CP: fakecp.New(nil)}).Listener(s)
}

// testSession is a session reading the client's bytes in, writing the
// listener's answers to out and what it forwards to fwd.
func testSession(l *app.Listener, in []byte, out, fwd *bytes.Buffer) *session {
	client := fuzzConn{r: bytes.NewReader(in), w: out}
	s := &session{l: l, log: slog.New(slog.DiscardHandler), client: client, clientAddr: client.RemoteAddr().String(), cr: bufio.NewReaderSize(client, 32<<10),
		up: fuzzConn{w: fwd}, pending: map[int32]*pending{}}
	s.nextID.Store(1 << 30)
	return s
}

// opMsg is an OP_MSG with body doc and requestID id.
func opMsg(id int32, flags wire.MsgFlag, doc bsoncore.Document) []byte {
	m := &wire.Msg{Header: wire.Header{RequestID: id}, Flags: flags, Body: doc}
	return m.Append(nil)
}

func doc(build func(b *bsoncore.DocumentBuilder)) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	build(b)
	return b.Build()
}

// seedMessages are well-formed client messages: a hello with an appName
// asking for return mode, a find, a held delete, a policy-denied $where,
// a moreToCome delete, a legacy OP_QUERY isMaster, a compressed find.
func seedMessages(tb testing.TB) [][]byte {
	hello := doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendInt32("hello", 1).AppendDocument("client", doc(func(c *bsoncore.DocumentBuilder) {
			c.AppendDocument("application", doc(func(a *bsoncore.DocumentBuilder) { a.AppendString("name", "agent hoop-approval=return") }))
		})).AppendString("$db", "admin")
	})
	find := doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendString("find", "t").AppendDocument("filter", doc(func(f *bsoncore.DocumentBuilder) { f.AppendInt32("a", 1) })).AppendString("$db", "test")
	})
	del := doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendString("delete", "t").AppendArray("deletes", bsoncore.NewArrayBuilder().AppendDocument(doc(func(d *bsoncore.DocumentBuilder) {
			d.AppendDocument("q", doc(func(f *bsoncore.DocumentBuilder) { f.AppendInt32("a", 1) })).AppendInt32("limit", 0)
		})).Build()).AppendString("$db", "test")
	})
	where := doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendString("find", "t").AppendDocument("filter", doc(func(f *bsoncore.DocumentBuilder) { f.AppendString("$where", "true") })).AppendString("$db", "test")
	})
	isMaster := (&wire.Query{Header: wire.Header{RequestID: 7}, FullCollectionName: "admin.$cmd", NumberToReturn: -1,
		Query: doc(func(b *bsoncore.DocumentBuilder) { b.AppendInt32("isMaster", 1) })}).Append(nil)
	compressed, err := wire.Compress(opMsg(8, 0, find), wire.CompressorSnappy)
	if err != nil {
		tb.Fatal(err)
	}
	return [][]byte{opMsg(1, 0, hello), opMsg(2, 0, find), opMsg(3, 0, del), opMsg(4, 0, where),
		opMsg(5, wire.MoreToCome, del), isMaster, compressed}
}

// FuzzSession feeds a client's byte stream to a session whose upstream
// accepts everything and answers nothing: any input must end in an error
// or EOF (malformed messages close the connection), never a panic.
func FuzzSession(f *testing.F) {
	msgs := seedMessages(f)
	f.Add(bytes.Join(msgs, nil))
	for _, m := range msgs {
		f.Add(m)
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0, 0xdd, 0x07, 0, 0})
	x509 := doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendInt32("authenticate", 1).AppendString("mechanism", "MONGODB-X509").AppendString("$db", "$external")
	})
	f.Add(append(opMsg(1, 0, doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendInt32("hello", 1).AppendDocument("speculativeAuthenticate", x509).AppendString("$db", "admin")
	})), opMsg(2, 0, x509)...))
	l := testListener(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		s := testSession(l, in, &bytes.Buffer{}, &bytes.Buffer{})
		if len(in)%2 == 1 {
			// Client certificates verified (x509.go): hellos rewritten,
			// authenticate answered here.
			s.x509 = &x509Auth{subject: "CN=fuzz"}
		}
		_ = s.serve()
	})
}

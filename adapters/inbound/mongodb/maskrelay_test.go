package mongodb

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

type auditLines struct {
	mu     sync.Mutex
	events []ports.AuditEvent
}

func (a *auditLines) Record(e ports.AuditEvent) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.events = append(a.events, e)
}

// masking returns the masked and mask_withheld lines.
func (a *auditLines) masking() []ports.AuditEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []ports.AuditEvent
	for _, e := range a.events {
		if strings.HasPrefix(e.Decision, "mask") {
			out = append(out, e)
		}
	}
	return out
}

// maskListener is a listener with no approval rule that masks with rules.
func maskListener(tb testing.TB, audit ports.AuditSink, rules ...masking.Rule) *app.Listener {
	s := app.ListenerSettings{Name: "mongo", Protocol: "mongodb", Mode: app.ModeReturn, SpendOn: ports.SpendOnSent,
		Masking: maskSet(tb, rules...)}
	return app.NewCore(app.CoreOptions{Sidecar: "test", CP: fakecp.New(nil), Audit: audit}).Listener(s)
}

// roundTrip runs one connection of l: the client sends in, the upstream
// answers with replies; it returns what the client received.
func roundTrip(t *testing.T, l *app.Listener, c *cursors, in []byte, replies ...[]byte) []byte {
	t.Helper()
	var out, fwd bytes.Buffer
	client := fuzzConn{r: bytes.NewReader(in), w: &out}
	s := &session{l: l, log: slog.New(slog.DiscardHandler), client: client, clientAddr: "client", cr: bufio.NewReader(client),
		up: fuzzConn{r: bytes.NewReader(bytes.Join(replies, nil)), w: &fwd}, pending: map[int32]*pending{}, cursors: c}
	if err := s.serve(); !errors.Is(err, io.EOF) {
		t.Fatalf("serve: %v", err)
	}
	if !bytes.Equal(fwd.Bytes(), in) {
		t.Fatal("the client's messages were not forwarded as sent")
	}
	s.relay()
	return out.Bytes()
}

func request(id int32, build func(b *bsoncore.DocumentBuilder)) []byte {
	return opMsg(id, 0, doc(build))
}

func reply(to int32, body bsoncore.Document) []byte {
	return (&wire.Msg{Header: wire.Header{RequestID: 500 + to, ResponseTo: to}, Body: body}).Append(nil)
}

// A find's first batch is masked on one connection, its getMore's batch
// on another (drivers send getMore on any pooled connection), with one
// "masked" audit line per reply; once the cursor is exhausted it is
// forgotten. The rule matches finds only: a getMore is masked because its
// cursor's find was.
func TestMaskCursorAcrossConnections(t *testing.T) {
	audit := &auditLines{}
	finds := piiRule
	finds.Match = &domain.Match{Actions: []string{"FIND"}}
	if err := finds.Match.Compile(); err != nil {
		t.Fatal(err)
	}
	l := maskListener(t, audit, finds)
	c := &cursors{}
	find := request(2, func(b *bsoncore.DocumentBuilder) { b.AppendString("find", "t").AppendString("$db", "test") })
	out := roundTrip(t, l, c, find, reply(2, cursorReply("firstBatch", 77, person())))
	if bytes.Contains(out, []byte("alice@")) || !bytes.Contains(out, []byte("<EMAIL_ADDRESS>")) {
		t.Fatal("the first batch was not masked")
	}
	if _, ok := c.get(l, 77); !ok {
		t.Fatal("the open cursor 77 is not remembered")
	}

	getMore := request(3, func(b *bsoncore.DocumentBuilder) {
		b.AppendInt64("getMore", 77).AppendString("collection", "t").AppendString("$db", "test")
	})
	out = roundTrip(t, l, c, getMore, reply(3, cursorReply("nextBatch", 0, person())))
	if bytes.Contains(out, []byte("alice@")) || !bytes.Contains(out, []byte("<EMAIL_ADDRESS>")) {
		t.Fatal("the getMore batch on another connection was not masked")
	}
	if _, ok := c.get(l, 77); ok {
		t.Fatal("the exhausted cursor is still remembered")
	}
	if m := audit.masking(); len(m) != 2 || m[1].Decision != "masked" || m[1].Masked["pii"] != 8 {
		t.Fatalf("audit %+v, want two masked lines of 8 pii values each", m)
	}
}

// A reply a strict rule cannot read (here: not valid BSON) is withheld:
// the client gets error 125 with the masking error's text and none of the
// reply; the audit line says mask_withheld.
func TestMaskWithholdsUnreadableReply(t *testing.T) {
	audit := &auditLines{}
	l := maskListener(t, audit, piiRule)
	bad := reply(2, cursorReply("firstBatch", 0, person()))
	bad[bytes.Index(bad, []byte("email\x00"))-1] = 0x7f
	find := request(2, func(b *bsoncore.DocumentBuilder) { b.AppendString("find", "t").AppendString("$db", "test") })
	out := roundTrip(t, l, &cursors{}, find, bad)
	got := replies(t, out)
	if len(got) != 1 || got[0].Header.ResponseTo != 2 || bytes.Contains(out, []byte("alice@")) {
		t.Fatalf("want one error reply to request 2 and nothing of the upstream's: %d replies", len(got))
	}
	code, _ := got[0].Body.Lookup("code").AsInt64OK()
	msg, _ := got[0].Body.Lookup("errmsg").StringValueOK()
	if code != CodeWithheld || !strings.Contains(msg, `masking rule "pii" could not read a value`) {
		t.Fatalf("error %d %q", code, msg)
	}
	if m := audit.masking(); len(m) != 1 || m[0].Decision != "mask_withheld" {
		t.Fatalf("audit %+v, want one mask_withheld line", m)
	}
}

// Without masking rules a reply is relayed as read and nothing is
// remembered or audited.
func TestNoMaskingRelaysUnread(t *testing.T) {
	audit := &auditLines{}
	s := app.ListenerSettings{Name: "mongo", Protocol: "mongodb", Mode: app.ModeReturn, SpendOn: ports.SpendOnSent}
	l := app.NewCore(app.CoreOptions{Sidecar: "test", CP: fakecp.New(nil), Audit: audit}).Listener(s)
	c := &cursors{}
	find := request(2, func(b *bsoncore.DocumentBuilder) { b.AppendString("find", "t").AppendString("$db", "test") })
	up := reply(2, cursorReply("firstBatch", 77, person()))
	if out := roundTrip(t, l, c, find, up); !bytes.Equal(out, up) {
		t.Fatal("the reply was changed without a masking rule")
	}
	if c.n.Load() != 0 {
		t.Fatal("a cursor was remembered without a masking rule")
	}
	if m := audit.masking(); len(m) != 0 {
		t.Fatalf("audit lines %+v without a masking rule", m)
	}
}

// A reply over maxMessageSizeBytes that a strict rule covers is not read:
// its bytes are skipped, the client gets error 125 in its place, and the
// next reply on the connection arrives as sent. Under best_effort the same
// reply is streamed unread and counted.
func TestMaskReplyOverMax(t *testing.T) {
	lenient := piiRule
	lenient.Mode = masking.BestEffort
	for _, rule := range []masking.Rule{piiRule, lenient} {
		audit := &auditLines{}
		l := maskListener(t, audit, rule)
		big := reply(2, cursorReply("firstBatch", 0, person()))
		next := reply(3, doc(func(b *bsoncore.DocumentBuilder) { b.AppendDouble("ok", 1) }))
		var out bytes.Buffer
		s := &session{l: l, log: slog.New(slog.DiscardHandler), client: fuzzConn{w: &out},
			up: fuzzConn{r: bytes.NewReader(append(bytes.Clone(big), next...))}, cursors: &cursors{},
			pending: map[int32]*pending{2: {mask: maskSource{set: l.Settings()}.job()}}}
		s.maxSize.Store(int32(len(big) - 1))
		s.relay()
		got := replies(t, out.Bytes())
		if len(got) != 2 || !bytes.HasSuffix(out.Bytes(), next) {
			t.Fatalf("%s: want the answer to 2, then reply 3 as sent; got %d replies", rule.Mode, len(got))
		}
		code, _ := got[0].Body.Lookup("code").AsInt64OK()
		m := audit.masking()
		if rule.Mode == masking.BestEffort {
			if !bytes.HasPrefix(out.Bytes(), big) || len(m) != 1 || m[0].Uninspected != 1 {
				t.Fatalf("best_effort: want the reply unread and counted, audit %+v", m)
			}
			continue
		}
		if code != CodeWithheld || bytes.Contains(out.Bytes(), []byte("alice@")) || len(m) != 1 || m[0].Decision != "mask_withheld" {
			t.Fatalf("strict: want error 125 and nothing of the reply (code %d, audit %+v)", code, m)
		}
	}
}

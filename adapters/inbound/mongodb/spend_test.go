package mongodb

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// spend_approval_on: accepted, and the upstream's answer to the approved
// delete is larger than the listener reads whole, or unreadable: its
// outcome is unknown,
// so the approval is spent (EXECUTED), never given back (APPROVED), which
// would let a resend run the delete a second time.
func TestUnreadAnswerToAnApprovedWriteSpendsTheApproval(t *testing.T) {
	big := (&wire.Msg{Header: wire.Header{RequestID: 9, ResponseTo: 2}, Body: doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendDouble("ok", 1).AppendInt32("n", 1).AppendString("pad", string(bytes.Repeat([]byte{'x'}, 2048)))
	})}).Append(nil)
	unreadable := append(wire.AppendHeader(nil, wire.Header{Length: wire.HeaderLen + 5, RequestID: 9, ResponseTo: 2, OpCode: wire.OpMsg}),
		0, 0, 0, 0, 9) // flagBits, then a section of kind 9
	for name, answer := range map[string][]byte{"larger than read whole": big, "unreadable": unreadable} {
		t.Run(name, func(t *testing.T) { spendsOnUnknownOutcome(t, answer) })
	}
}

func spendsOnUnknownOutcome(t *testing.T, answer []byte) {
	cp := fakecp.New(nil)
	set := app.ListenerSettings{Name: "mongo", Protocol: "mongodb", Mode: app.ModeReturn, SpendOn: ports.SpendOnAccepted,
		Approvals: []domain.ApprovalRule{{Name: "destructive", Match: domain.Match{Actions: []string{"DELETE"}}}}}
	if err := set.Approvals[0].Match.Compile(); err != nil {
		t.Fatal(err)
	}
	l := app.NewCore(app.CoreOptions{Sidecar: "test", CP: cp}).Listener(set)
	del := doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendString("delete", "t").AppendArray("deletes", bsoncore.NewArrayBuilder().AppendDocument(
			doc(func(b *bsoncore.DocumentBuilder) {
				b.AppendDocument("q", doc(func(*bsoncore.DocumentBuilder) {})).AppendInt32("limit", 0)
			})).Build()).
			AppendString("$db", "test")
	})
	var out, fwd bytes.Buffer
	_ = testSession(l, opMsg(1, 0, del), &out, &fwd).serve()
	recs := cp.Records()
	if len(recs) != 1 || fwd.Len() != 0 {
		t.Fatalf("the delete was not held: %d approvals, %d bytes forwarded", len(recs), fwd.Len())
	}
	if err := cp.Decide(recs[0].ID, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	s := testSession(l, opMsg(2, 0, del), &out, &fwd)
	_ = s.serve()
	if fwd.Len() == 0 {
		t.Fatal("the approved delete was not forwarded")
	}
	s.maxSize.Store(1024)
	s.up = fuzzConn{r: bytes.NewReader(answer)}
	s.relay()
	if st := cp.Records()[0].Status; st != domain.StatusExecuted {
		t.Fatalf("approval %s after an unread answer, want %s", st, domain.StatusExecuted)
	}
}

// A client that pipelines a command and then an approved write under the
// same requestID, before the first is answered: the first answer (say, an
// error) would settle the write's approval and give it back while the write
// runs, so a resend would run it twice. The listener refuses the write
// instead (nothing forwarded, approval given back: it did not run).
func TestApprovedWriteReusingAnOutstandingRequestIDIsRefused(t *testing.T) {
	cp := fakecp.New(nil)
	l := spendOnAcceptedListener(t, cp)
	var out, fwd bytes.Buffer
	_ = testSession(l, opMsg(1, 0, deleteAll()), &out, &fwd).serve()
	if err := cp.Decide(cp.Records()[0].ID, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	find := opMsg(7, 0, doc(func(b *bsoncore.DocumentBuilder) { b.AppendString("find", "t").AppendString("$db", "test") }))
	out.Reset()
	fwd.Reset()
	_ = testSession(l, append(find, opMsg(7, 0, deleteAll())...), &out, &fwd).serve()
	if !bytes.Equal(fwd.Bytes(), find) {
		t.Fatalf("forwarded %d bytes, want only the find (%d)", fwd.Len(), len(find))
	}
	if st := cp.Records()[0].Status; st != domain.StatusApproved {
		t.Fatalf("approval %s, want %s (the delete never ran)", st, domain.StatusApproved)
	}
	if rs := replies(t, out.Bytes()); len(rs) != 1 || rs[0].Header.ResponseTo != 7 {
		t.Fatalf("the client got %d answers, want the refusal of the delete", len(rs))
	}
}

func spendOnAcceptedListener(t *testing.T, cp *fakecp.CP) *app.Listener {
	set := app.ListenerSettings{Name: "mongo", Protocol: "mongodb", Mode: app.ModeReturn, SpendOn: ports.SpendOnAccepted,
		Approvals: []domain.ApprovalRule{{Name: "destructive", Match: domain.Match{Actions: []string{"DELETE"}}}}}
	if err := set.Approvals[0].Match.Compile(); err != nil {
		t.Fatal(err)
	}
	return app.NewCore(app.CoreOptions{Sidecar: "test", CP: cp}).Listener(set)
}

func deleteAll() bsoncore.Document {
	return doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendString("delete", "t").AppendArray("deletes", bsoncore.NewArrayBuilder().AppendDocument(
			doc(func(b *bsoncore.DocumentBuilder) {
				b.AppendDocument("q", doc(func(*bsoncore.DocumentBuilder) {})).AppendInt32("limit", 0)
			})).Build()).
			AppendString("$db", "test")
	})
}

// The upstream's answer to an approved delete decides the approval only as
// proof that nothing ran (spend.go): ok: 0 with a code raised before the
// command runs gives it back; a writeConcernError (the write was applied),
// partial writeErrors, n > 0, or a code raised while running spend it.
func TestApprovedWriteAnswersSpendUnlessProvedVoid(t *testing.T) {
	for name, tc := range map[string]struct {
		body func(b *bsoncore.DocumentBuilder)
		want domain.Status
	}{
		"Unauthorized": {func(b *bsoncore.DocumentBuilder) {
			b.AppendDouble("ok", 0).AppendInt32("code", 13).AppendString("codeName", "Unauthorized").AppendString("errmsg", "not authorized")
		}, domain.StatusApproved},
		"writeConcernError": {func(b *bsoncore.DocumentBuilder) {
			b.AppendDouble("ok", 1).AppendInt32("n", 3).AppendDocument("writeConcernError", doc(func(w *bsoncore.DocumentBuilder) {
				w.AppendInt32("code", 64).AppendString("errmsg", "waiting for replication timed out")
			}))
		}, domain.StatusExecuted},
		"partial writeErrors": {func(b *bsoncore.DocumentBuilder) {
			b.AppendDouble("ok", 1).AppendInt32("n", 1).AppendArray("writeErrors", bsoncore.NewArrayBuilder().AppendDocument(
				doc(func(w *bsoncore.DocumentBuilder) {
					w.AppendInt32("index", 1).AppendInt32("code", 11000).AppendString("errmsg", "duplicate key")
				})).Build())
		}, domain.StatusExecuted},
		"WriteConflict while running": {func(b *bsoncore.DocumentBuilder) {
			b.AppendDouble("ok", 0).AppendInt32("code", 112).AppendString("codeName", "WriteConflict").AppendString("errmsg", "write conflict")
		}, domain.StatusExecuted},
	} {
		t.Run(name, func(t *testing.T) {
			answer := (&wire.Msg{Header: wire.Header{RequestID: 9, ResponseTo: 2}, Body: doc(tc.body)}).Append(nil)
			cp := fakecp.New(nil)
			l := spendOnAcceptedListener(t, cp)
			var out, fwd bytes.Buffer
			_ = testSession(l, opMsg(1, 0, deleteAll()), &out, &fwd).serve()
			if err := cp.Decide(cp.Records()[0].ID, domain.StatusApproved, ""); err != nil {
				t.Fatal(err)
			}
			s := testSession(l, opMsg(2, 0, deleteAll()), &out, &fwd)
			_ = s.serve()
			s.up = fuzzConn{r: bytes.NewReader(answer)}
			s.relay()
			if st := cp.Records()[0].Status; st != tc.want {
				t.Fatalf("approval %s after the answer, want %s", st, tc.want)
			}
		})
	}
}

// The upstream lost before it answered an approved delete: when the
// connection ends the approval is spent, never left PROCESSING.
func TestUpstreamLostBeforeTheAnswerSpends(t *testing.T) {
	cp := fakecp.New(nil)
	l := spendOnAcceptedListener(t, cp)
	var out, fwd bytes.Buffer
	_ = testSession(l, opMsg(1, 0, deleteAll()), &out, &fwd).serve()
	if err := cp.Decide(cp.Records()[0].ID, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	s := testSession(l, opMsg(2, 0, deleteAll()), &out, &fwd)
	s.up = fuzzConn{r: bytes.NewReader([]byte{1, 2, 3}), w: &fwd} // half a header, then EOF
	s.Run()
	if fwd.Len() == 0 {
		t.Fatal("the approved delete was not forwarded")
	}
	if st := cp.Records()[0].Status; st != domain.StatusExecuted {
		t.Fatalf("approval %s after the upstream was lost, want %s", st, domain.StatusExecuted)
	}
}

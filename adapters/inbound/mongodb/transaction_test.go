package mongodb

import (
	"bytes"
	"io"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// In a transaction, an allowed insert is forwarded; the held delete after
// it is answered with the denial and the listener sends abortTransaction
// for the same lsid and txnNumber to the upstream, so the transaction
// cannot commit the insert.
func TestHeldCommandAbortsTheTransaction(t *testing.T) {
	abortWait = 10 * time.Millisecond // the upstream here never answers
	defer func() { abortWait = 10 * time.Second }()
	lsid := doc(func(b *bsoncore.DocumentBuilder) { b.AppendBinary("id", 4, bytes.Repeat([]byte{7}, 16)) })
	txn := func(b *bsoncore.DocumentBuilder, start bool) {
		b.AppendDocument("lsid", lsid).AppendInt64("txnNumber", 5).AppendBoolean("autocommit", false)
		if start {
			b.AppendBoolean("startTransaction", true)
		}
		b.AppendString("$db", "test")
	}
	insert := opMsg(11, 0, doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendString("insert", "t").AppendArray("documents", bsoncore.NewArrayBuilder().AppendDocument(
			doc(func(d *bsoncore.DocumentBuilder) { d.AppendInt32("a", 1) })).Build())
		txn(b, true)
	}))
	del := opMsg(12, 0, doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendString("delete", "t").AppendArray("deletes", bsoncore.NewArrayBuilder().AppendDocument(doc(func(d *bsoncore.DocumentBuilder) {
			d.AppendDocument("q", doc(func(f *bsoncore.DocumentBuilder) { f.AppendInt32("a", 2) })).AppendInt32("limit", 0)
		})).Build())
		txn(b, false)
	}))
	var out, fwd bytes.Buffer
	s := testSession(testListener(t), append(insert, del...), &out, &fwd)
	if err := s.serve(); err != io.EOF {
		t.Fatal(err)
	}
	r := bytes.NewReader(fwd.Bytes())
	first, _ := wire.ReadMessage(r, 0)
	if !bytes.Equal(first, insert) {
		t.Fatal("the insert was not forwarded as sent")
	}
	abort, err := wire.ReadMessage(r, 0)
	if err != nil {
		t.Fatalf("nothing after the insert: %v", err)
	}
	m, err := wire.DecodeMsg(abort)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := m.Body.IndexErr(0); k.Key() != "abortTransaction" {
		t.Fatalf("sent %s, want abortTransaction", m.Body)
	}
	if n, _ := m.Body.Lookup("txnNumber").Int64OK(); n != 5 {
		t.Fatalf("txnNumber %d, want 5", n)
	}
	if got, _ := m.Body.Lookup("lsid").DocumentOK(); !bytes.Equal(got, lsid) {
		t.Fatal("abortTransaction names another lsid")
	}
	if r.Len() != 0 {
		t.Fatal("the held delete was forwarded")
	}
	got := replies(t, out.Bytes())
	if len(got) != 1 || got[0].Header.ResponseTo != 12 {
		t.Fatalf("want the denial of the delete, got %d replies", len(got))
	}
	if _, err := got[0].Body.LookupErr("errorLabels"); err == nil {
		t.Fatal("the denial carries error labels: drivers would retry the transaction")
	}
}

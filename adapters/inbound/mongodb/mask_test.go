package mongodb

import (
	"bytes"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
)

// maskSet compiles rules, each named after its strategy's use.
func maskSet(tb testing.TB, rules ...masking.Rule) *masking.Set {
	tb.Helper()
	s, err := masking.Compile(rules)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

var (
	piiRule   = masking.Rule{Name: "pii", Entities: masking.EntityNames(), Strategy: masking.Redact}
	wholeRule = masking.Rule{Name: "secret", Columns: []string{"secret", "profile.pin", "secretDoc"}, Strategy: masking.Redact}
)

// maskReply is maskReplyOf with a masker of plan and distinct.
func maskReply(msg []byte, plan *masking.Plan, distinct []string, max int) (maskedReply, error) {
	return maskReplyOf(msg, &masker{plan: plan, distinct: distinct}, max)
}

func plan(tb testing.TB, rules ...masking.Rule) *masking.Plan {
	return maskSet(tb, rules...).For(domain.Analysis{}, domain.Facts{})
}

// cursorReply is a find reply: {cursor: {firstBatch|nextBatch: docs, id, ns}, ok: 1}.
func cursorReply(batch string, id int64, docs ...bsoncore.Document) bsoncore.Document {
	arr := bsoncore.NewArrayBuilder()
	for _, d := range docs {
		arr.AppendDocument(d)
	}
	return doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendDocument("cursor", doc(func(c *bsoncore.DocumentBuilder) {
			c.AppendArray(batch, arr.Build()).AppendInt64("id", id).AppendString("ns", "test.t")
		})).AppendDouble("ok", 1)
	})
}

// person holds each BSON type the masker reads.
func person() bsoncore.Document {
	return doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendObjectID("_id", bson.NewObjectID()).
			AppendString("email", "alice@example.com").
			AppendDocument("deep", doc(func(d *bsoncore.DocumentBuilder) {
				d.AppendArray("list", bsoncore.NewArrayBuilder().
					AppendString("call 4111 1111 1111 1111").
					AppendArray(bsoncore.NewArrayBuilder().AppendDocument(doc(func(x *bsoncore.DocumentBuilder) {
						x.AppendString("mail", "bob@example.org")
					})).Build()).Build())
			})).
			AppendInt64("cardInt", 4111111111111111).
			AppendDouble("cardDouble", 4111111111111111).
			AppendInt32("age", 42).
			AppendString("wrong", "4111 1111 1111 1112").
			AppendBinary("blob", 0, []byte("to alice@example.com")).
			AppendRegex("re", "alice@example.com", "i").
			AppendJavaScript("js", "mail('alice@example.com')").
			AppendDateTime("at", 1700000000000).
			AppendInt32("secret", 7).
			AppendDocument("profile", doc(func(p *bsoncore.DocumentBuilder) { p.AppendString("pin", "1234") })).
			AppendDocument("secretDoc", doc(func(p *bsoncore.DocumentBuilder) { p.AppendString("x", "y") }))
	})
}

// decodeReply decodes the masked reply and returns its first result
// document, failing t unless the reply parses with the wire codec and
// every document is valid BSON.
func firstDoc(t *testing.T, msg []byte) bson.Raw {
	t.Helper()
	orig, err := wire.Decompress(msg, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := wire.DecodeMsg(orig)
	if err != nil {
		t.Fatal(err)
	}
	arr, ok := m.Body.Lookup("cursor", "firstBatch").ArrayOK()
	if !ok {
		arr, ok = m.Body.Lookup("cursor", "nextBatch").ArrayOK()
	}
	if !ok {
		return bson.Raw(m.Body.Lookup("value").Document())
	}
	vals, _ := arr.Values()
	return bson.Raw(vals[0].Document())
}

// What each type becomes under an entity rule and a column rule: text
// masked in place at any depth (arrays in arrays included), numbers and
// binaries holding an entity null, a column rule's number and document
// null and its text redacted whole, the rest (a Luhn-failing number, an
// ObjectId, a date, an int) unchanged.
func TestMaskReplyTypes(t *testing.T) {
	p := plan(t, wholeRule, piiRule)
	in := opMsg(9, 0, cursorReply("firstBatch", 77, person()))
	r, err := maskReply(in, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.CursorID != 77 {
		t.Fatalf("cursor id %d, want 77", r.CursorID)
	}
	got := firstDoc(t, r.Msg)
	if s := text(got); strings.Contains(s, "alice@") || strings.Contains(s, "bob@") || strings.Contains(s, "4111 1111 1111 1111") {
		t.Fatalf("an entity is left in clear: %s", s)
	}
	want := map[string]string{
		"email": "<EMAIL_ADDRESS>", "wrong": "4111 1111 1111 1112", "cardInt": "null", "cardDouble": "null",
		"age": `{"$numberInt":"42"}`, "blob": "null", "secret": "null", "secretDoc": "null",
	}
	for k, v := range want {
		s := got.Lookup(k).String()
		if str, ok := got.Lookup(k).StringValueOK(); ok {
			s = str
		}
		if s != v {
			t.Errorf("%s = %s, want %s", k, s, v)
		}
	}
	if s := text(got.Lookup("deep", "list")); !strings.Contains(s, "call <CREDIT_CARD>") || !strings.Contains(s, "<EMAIL_ADDRESS>") {
		t.Errorf("deep.list = %s", s)
	}
	if s := got.Lookup("profile", "pin").StringValue(); s != "<REDACTED>" {
		t.Errorf("profile.pin = %s, want the column rule's <REDACTED>", s)
	}
	if s := text(got.Lookup("re")); !strings.Contains(s, "<EMAIL_ADDRESS>") {
		t.Errorf("re = %s", s)
	}
	if s := text(got.Lookup("js")); !strings.Contains(s, "mail('<EMAIL_ADDRESS>')") {
		t.Errorf("js = %s", s)
	}
	if got.Lookup("_id").Type != bson.TypeObjectID || got.Lookup("at").Type != bson.TypeDateTime {
		t.Errorf("_id or at changed: %s", got)
	}
	if c := p.Counts(); len(c) != 2 || c[0] != (masking.Count{Rule: "secret", Values: 3}) || c[1].Values != 8 {
		t.Errorf("counts %v, want secret 2, pii 8", c)
	}
}

// A reply with nothing to mask is sent as read (the same bytes); a
// compressed reply that changes is compressed again with its compressor;
// a checksum is recomputed; findAndModify's value, a distinct's values
// and a legacy OP_REPLY are masked too; an undecodable reply is an error.
func TestMaskReplyForms(t *testing.T) {
	p := plan(t, piiRule)
	clean := opMsg(3, 0, cursorReply("firstBatch", 0, doc(func(b *bsoncore.DocumentBuilder) { b.AppendString("a", "b") })))
	if r, err := maskReply(clean, p, nil, 0); err != nil || &r.Msg[0] != &clean[0] {
		t.Fatalf("a reply with nothing to mask was re-encoded (%v)", err)
	}

	in, _ := wire.Compress(opMsg(4, wire.ChecksumPresent, cursorReply("nextBatch", 0, person())), wire.CompressorZlib)
	r, err := maskReply(in, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := wire.DecodeCompressed(r.Msg)
	if err != nil || c.CompressorID != wire.CompressorZlib || c.Header.RequestID != 4 {
		t.Fatalf("want a zlib OP_COMPRESSED with requestID 4: %+v %v", c, err)
	}
	if s := firstDoc(t, r.Msg).Lookup("email").StringValue(); s != "<EMAIL_ADDRESS>" {
		t.Fatalf("email %q", s)
	}

	fam := opMsg(5, 0, doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendDocument("lastErrorObject", doc(func(l *bsoncore.DocumentBuilder) { l.AppendInt32("n", 1) })).
			AppendDocument("value", person()).AppendDouble("ok", 1)
	}))
	if r, err = maskReply(fam, p, nil, 0); err != nil {
		t.Fatal(err)
	}
	if s := firstDoc(t, r.Msg).Lookup("email").StringValue(); s != "<EMAIL_ADDRESS>" {
		t.Fatalf("findAndModify's value: email %q", s)
	}

	legacy := (&wire.Reply{Header: wire.Header{RequestID: 6, ResponseTo: 2}, Documents: []bsoncore.Document{cursorReply("firstBatch", 0, person())}}).Append(nil)
	if r, err = maskReply(legacy, p, nil, 0); err != nil {
		t.Fatal(err)
	}
	rep, err := wire.DecodeReply(r.Msg)
	if err != nil || bytes.Contains(r.Msg, []byte("alice@")) || rep.Header.ResponseTo != 2 {
		t.Fatalf("OP_REPLY not masked: %v", err)
	}

	distinct := opMsg(8, 0, doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendArray("values", bsoncore.NewArrayBuilder().AppendString("alice@example.com").AppendInt64(4111111111111111).Build()).AppendDouble("ok", 1)
	}))
	if r, err = maskReply(distinct, p, []string{"contact", "email"}, 0); err != nil {
		t.Fatal(err)
	}
	m, _ := wire.DecodeMsg(r.Msg)
	if s := text(m.Body.Lookup("values")); s != `["<EMAIL_ADDRESS>",null]` {
		t.Fatalf("distinct's values %s", s)
	}

	bad := opMsg(7, 0, cursorReply("firstBatch", 0, person()))
	bad[bytes.Index(bad, []byte("email\x00"))-1] = 0x7f // an element type that does not exist
	if _, err := maskReply(bad, p, nil, 0); err == nil {
		t.Fatal("an undecodable reply was not refused")
	}
}

// text is v as relaxed Extended JSON with < and > unescaped.
func text(v interface{ String() string }) string {
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(v.String())
}

// A column rule alone (no entity) reaches a field nested in documents and
// arrays that no rule names on the way.
func TestMaskColumnRuleNested(t *testing.T) {
	p := plan(t, masking.Rule{Name: "mail", Columns: []string{"contact.email"}, Strategy: masking.Redact})
	d := doc(func(b *bsoncore.DocumentBuilder) {
		b.AppendDocument("customer", doc(func(c *bsoncore.DocumentBuilder) {
			c.AppendArray("contact", bsoncore.NewArrayBuilder().AppendDocument(doc(func(x *bsoncore.DocumentBuilder) {
				x.AppendString("email", "alice@example.com").AppendString("kind", "home")
			})).Build())
		}))
	})
	r, err := maskReply(opMsg(2, 0, cursorReply("firstBatch", 0, d)), p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s := text(firstDoc(t, r.Msg)); s != `{"customer": {"contact": [{"email": "<REDACTED>","kind": "home"}]}}` {
		t.Fatalf("got %s", s)
	}
}

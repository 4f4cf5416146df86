package mongodb

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/hoophq/sidecar/conformance/harness"
)

// maskConfig is a Sidecar config whose listener masks with three rules:
// pii (every entity, mask), last4 (the field payment.card whole, partial
// keep_last 4) and hashed (the field ref whole, hash with the key in
// keyFile).
func (e *env) maskConfig(listen, keyFile string) string {
	return `masking_rules:
  - name: pii
    entities: [EMAIL_ADDRESS, CREDIT_CARD, IBAN_CODE, US_SSN, PHONE_NUMBER, IP_ADDRESS, AWS_ACCESS_KEY, JWT, PRIVATE_KEY]
    strategy: mask
  - name: last4
    columns: [payment.card]
    strategy: partial
    keep_last: 4
  - name: hashed
    columns: [ref]
    strategy: hash
    key_file: ` + keyFile + `
` + e.config(listen, listenerOpts{extra: "    masking_rules: [last4, hashed, pii]\n"})
}

func (e *env) maskSidecar(keyFile string) (string, *harness.Sidecar) {
	e.t.Helper()
	addr := harness.FreeAddr(e.t)
	s := harness.StartSidecar(e.t, harness.SidecarOptions{Config: e.maskConfig(addr, keyFile), Token: sidecarToken})
	return addr, s
}

func maskKey(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "mask.key")
	if err := os.WriteFile(p, []byte("a key of sixteen bytes or more\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The customer document: a nested email and phone, a card number in text
// and as a number, one that fails Luhn, a card under a column rule and a
// reference under a hash rule.
func customer(id int) bson.D {
	return bson.D{
		{Key: "_id", Value: id},
		{Key: "name", Value: "Alice"},
		{Key: "contact", Value: bson.D{{Key: "email", Value: "alice@example.com"}, {Key: "notes", Value: bson.A{"write to alice@example.com"}}}},
		{Key: "card", Value: "4111 1111 1111 1111"},
		{Key: "cardnum", Value: int64(4111111111111111)},
		{Key: "wrong", Value: "4111 1111 1111 1112"},
		{Key: "payment", Value: bson.D{{Key: "card", Value: "4111111111111111"}}},
		{Key: "ref", Value: "cust-42"},
	}
}

var hashRef = regexp.MustCompile(`ref: '([0-9a-f]{32})'`)

// mongosh's find of a document with a nested email, through a listener
// with masking rules: no email or valid card number in clear (nested, in
// an array, in a number: null), the one failing Luhn as it is, the column
// rule's partial ************1111, the same hash on two connections and on
// a second Sidecar with the same key, and the audit line "masked" with
// its counts per rule. Directly, mongosh prints them all.
func TestMaskMongoshFind(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := maskKey(t)
	addr, sc := e.maskSidecar(key)
	e.seed("people", customer(1))
	const find = `printjson(db.people.find({}).toArray())`

	direct := e.mongoshURI(e.up.URL+e.db, find)
	for _, want := range []string{"alice@example.com", "4111 1111 1111 1111", "4111 1111 1111 1112", "cust-42"} {
		if !strings.Contains(direct, want) {
			t.Fatalf("directly, mongosh does not print %q:\n%s", want, direct)
		}
	}

	out := e.mongosh(addr, "", find)
	for _, clear := range []string{"alice@", "example.com", "4111 1111 1111 1111", "4111111111111111", "cust-42"} {
		if strings.Contains(out, clear) {
			t.Fatalf("mongosh printed %q in clear through the masking listener:\n%s", clear, out)
		}
	}
	for _, want := range []string{"*****@*******.***", "write to *****@*******.***", "**** **** **** ****", "cardnum: null",
		"4111 1111 1111 1112", "'************1111'", "name: 'Alice'"} {
		if !strings.Contains(out, want) {
			t.Fatalf("mongosh does not print %q through the masking listener:\n%s", want, out)
		}
	}
	h1 := hashRef.FindStringSubmatch(out)
	if h1 == nil {
		t.Fatalf("no hashed ref:\n%s", out)
	}
	if h2 := hashRef.FindStringSubmatch(e.mongosh(addr, "", find)); h2 == nil || h2[1] != h1[1] {
		t.Fatalf("the hash differs on a second connection: %v, %v", h1, h2)
	}
	addr2, _ := e.maskSidecar(key)
	if h3 := hashRef.FindStringSubmatch(e.mongosh(addr2, "", find)); h3 == nil || h3[1] != h1[1] {
		t.Fatalf("the hash differs on a second Sidecar with the same key: %v, %v", h1, h3)
	}
	sc.WaitFor(t, `"masked":{`, 10e9)
	audit := sc.Output()
	for _, want := range []string{`"decision":"masked"`, `"pii":4`, `"last4":1`, `"hashed":1`} {
		if !strings.Contains(audit, want) {
			t.Fatalf("no %s in the audit:\n%s", want, audit)
		}
	}
}

// Every batch of a cursor is masked (getMore, on whichever connection the
// driver sends it), findAndModify's value and distinct's values (by the
// column rule of the key's path too).
func TestMaskMongoshBatchesAndFindAndModify(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	addr, _ := e.maskSidecar(maskKey(t))
	e.seed("people", docs(25, func(i int) bson.D { return customer(i + 1) })...)

	out := e.mongosh(addr, "", `const all = db.people.find({}).batchSize(4).toArray();
print("docs " + all.length);
printjson(all.map(d => d.contact.email));
printjson(db.people.aggregate([{$match: {}}], {cursor: {batchSize: 3}}).toArray().map(d => d.card));
printjson(db.people.findOneAndUpdate({_id: 1}, {$set: {seen: true}}));
printjson(db.people.distinct("contact.email"));
printjson(db.people.distinct("payment.card"));`)
	if !strings.Contains(out, "docs 25") {
		t.Fatalf("mongosh did not read the 25 documents:\n%s", out)
	}
	if strings.Contains(out, "alice@") || strings.Contains(out, "4111 1111 1111 1111") {
		t.Fatalf("a batch or findAndModify's value was sent in clear:\n%s", out)
	}
	if n := strings.Count(out, "*****@*******.***"); n < 27 {
		t.Fatalf("want every email masked (25 in the find, 1 in findAndModify, 1 in distinct), got %d:\n%s", n, out)
	}
	if strings.Count(out, "'************1111'") != 2 || strings.Contains(out, "4111111111111111") {
		t.Fatalf("findAndModify's payment.card and distinct of it must both be ************1111:\n%s", out)
	}
}

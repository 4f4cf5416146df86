package mask

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
)

// testCols are the columns the tests and the fuzz target read: name, type
// OID, format.
var testCols = []pgproto3.FieldDescription{
	{Name: []byte("note"), DataTypeOID: oidText, Format: 0},
	{Name: []byte("label"), DataTypeOID: oidVarchar, Format: 1},
	{Name: []byte("doc"), DataTypeOID: oidJSONB, Format: 1},
	{Name: []byte("raw"), DataTypeOID: oidJSON, Format: 0},
	{Name: []byte("tags"), DataTypeOID: 1009, Format: 1},
	{Name: []byte("tagtext"), DataTypeOID: 1009, Format: 0},
	{Name: []byte("big"), DataTypeOID: 20, Format: 1},
	{Name: []byte("n"), DataTypeOID: 1700, Format: 1},
	{Name: []byte("card_number"), DataTypeOID: oidText, Format: 0},
	{Name: []byte("docs"), DataTypeOID: 3807, Format: 1},
	{Name: []byte("nums"), DataTypeOID: 1016, Format: 1},
}

func plan(t testing.TB, rules ...masking.Rule) *masking.Plan {
	s, err := masking.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	return s.For(domain.Analysis{}, domain.Facts{})
}

var (
	redactAll = masking.Rule{Name: "pii", Entities: masking.EntityNames(), Strategy: masking.Redact}
	cardCol   = masking.Rule{Name: "cards", Columns: []string{"card_number"}, Strategy: masking.Partial, KeepLast: 4}
)

// dataRow encodes a DataRow frame; a nil value is NULL.
func dataRow(vals ...[]byte) []byte {
	var b []byte
	for _, v := range vals {
		if v == nil {
			b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	return encodeRow(uint16(len(vals)), b)
}

func encodeRow(n uint16, body []byte) []byte {
	f := []byte{'D', 0, 0, 0, 0}
	f = binary.BigEndian.AppendUint16(f, n)
	f = append(f, body...)
	binary.BigEndian.PutUint32(f[1:], uint32(len(f)-1))
	return f
}

// binArray encodes a one-dimensional binary array of type elem.
func binArray(elem uint32, vals ...[]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, 1)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, elem)
	b = binary.BigEndian.AppendUint32(b, uint32(len(vals)))
	b = binary.BigEndian.AppendUint32(b, 1)
	for _, v := range vals {
		if v == nil {
			b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	return b
}

func int8bin(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

// numeric 4111111111111111: base-10000 digits 4111 1111 1111 1111, weight 3.
var numericCard = []byte{0, 4, 0, 3, 0, 0, 0, 0, 0x10, 0x0F, 0x04, 0x57, 0x04, 0x57, 0x04, 0x57}

func seedRow() []byte {
	return dataRow(
		[]byte("write to alice@example.com"),
		[]byte("4111 1111 1111 1111"),
		append([]byte{1}, `{"to": "bob@example.org", "n": 4111111111111111, "ok": "4111 1111 1111 1112"}`...),
		[]byte(`["a\"b alice@example.com", {"k\u0040": 1}]`),
		binArray(oidText, []byte("alice@example.com"), nil, []byte("plain")),
		[]byte(`{"alice@example.com",NULL,plain,"q\"uote 10.0.0.12"}`),
		int8bin(4111111111111111),
		numericCard,
		[]byte("4111111111111111"),
		binArray(oidJSONB, append([]byte{1}, `"alice@example.com"`...)),
		binArray(20, int8bin(4111111111111111), int8bin(7)),
	)
}

func TestRowMasksEveryKind(t *testing.T) {
	p := plan(t, cardCol, redactAll)
	r := Row{Plan: p, Cols: Columns(nil, p, testCols)}
	out, err := r.Mask(seedRow())
	if err != nil {
		t.Fatal(err)
	}
	var d pgproto3.DataRow
	if err := d.Decode(out[5:]); err != nil {
		t.Fatal(err)
	}
	v := d.Values
	want := map[int]string{
		0: "write to <EMAIL_ADDRESS>",
		1: "<CREDIT_CARD>",
		2: "\x01" + `{"to": "<EMAIL_ADDRESS>", "n": null, "ok": "4111 1111 1111 1112"}`,
		3: `["a\"b <EMAIL_ADDRESS>", {"k\u0040": 1}]`,
		5: `{"<EMAIL_ADDRESS>",NULL,plain,"q\"uote <IP_ADDRESS>"}`,
		8: "************1111",
	}
	for i, w := range want {
		if string(v[i]) != w {
			t.Errorf("column %d: %q, want %q", i, v[i], w)
		}
	}
	if !bytes.Equal(v[4], binArray(oidText, []byte("<EMAIL_ADDRESS>"), nil, []byte("plain"))) {
		t.Errorf("binary text[]: %q", v[4])
	}
	if v[6] != nil || v[7] != nil {
		t.Errorf("a card number in a bigint or numeric is not NULL: %q %q", v[6], v[7])
	}
	if !bytes.Equal(v[9], binArray(oidJSONB, append([]byte{1}, `"<EMAIL_ADDRESS>"`...))) {
		t.Errorf("binary jsonb[]: %q", v[9])
	}
	unchanged := dataRow([]byte("nothing"), nil, nil, nil, nil, nil, int8bin(42), nil, nil, nil, nil)
	if out, err := (&Row{Plan: p, Cols: Columns(nil, p, testCols)}).Mask(unchanged); err != nil || &out[0] != &unchanged[0] {
		t.Errorf("a row with nothing to mask is not passed as it is: %v", err)
	}
}

// A bigint[] in binary format is read element by element: the card
// number becomes a NULL element.
func TestRowNumberArray(t *testing.T) {
	p := plan(t, redactAll)
	r := Row{Plan: p, Cols: Columns(nil, p, []pgproto3.FieldDescription{{Name: []byte("ns"), DataTypeOID: 1016, Format: 1}})}
	out, err := r.Mask(dataRow(binArray(20, int8bin(4111111111111111), int8bin(7))))
	if err != nil {
		t.Fatal(err)
	}
	want := binArray(20, nil, int8bin(7))
	binary.BigEndian.PutUint32(want[4:], 1) // has NULL
	var d pgproto3.DataRow
	if err := d.Decode(out[5:]); err != nil || !bytes.Equal(d.Values[0], want) {
		t.Fatalf("%x, want %x (%v)", d.Values[0], want, err)
	}
}

func TestRowRefuses(t *testing.T) {
	p := plan(t, redactAll)
	r := Row{Plan: p, Cols: Columns(nil, p, []pgproto3.FieldDescription{{Name: []byte("p"), DataTypeOID: 600, Format: 1}})}
	var ue *masking.UnreadableError
	if _, err := r.Mask(dataRow([]byte("0123456789abcdef"))); !errors.As(err, &ue) {
		t.Fatalf("a binary point: %v", err)
	}
	r.Cols, r.Encoding = Columns(nil, p, testCols[:1]), "SJIS"
	if _, err := r.Mask(dataRow([]byte("x"))); !errors.As(err, &ue) {
		t.Fatalf("text in SJIS: %v", err)
	}
	if _, err := r.Mask(encodeRow(1, []byte{0, 0, 0, 9, 'x'})); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a short value: %v", err)
	}
}

func TestCopyRow(t *testing.T) {
	p := plan(t, redactAll)
	in := []byte("d\x00\x00\x00\x00alice@example.com\tx,4111 1111 1111 1111\tplain\n")
	binary.BigEndian.PutUint32(in[1:], uint32(len(in)-1))
	out := CopyRow(nil, p.Field(), in)
	if string(out[5:]) != "<EMAIL_ADDRESS>\tx,<CREDIT_CARD>\tplain\n" || int(binary.BigEndian.Uint32(out[1:])) != len(out)-1 {
		t.Fatalf("%q", out)
	}
}

// FuzzRow: any DataRow body under the test columns is either refused
// (an *masking.UnreadableError or ErrMalformed) or rewritten into a
// DataRow that pgproto3 decodes, with as many values, json that stays
// json, and no entity left: masking it again changes nothing.
func FuzzRow(f *testing.F) {
	f.Add(seedRow()[5:])
	f.Add(dataRow(nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)[5:])
	f.Add(dataRow([]byte("+1 415 555 2671"), []byte("GB82 WEST 1234 5698 7654 32"), []byte{1, '{', '}'}, []byte(`"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"`),
		binArray(oidText), []byte(`[1:1]={"123-45-6780"}`), int8bin(1), []byte{0, 0, 0, 0, 0, 0, 0, 0}, []byte("x"), binArray(oidJSONB), binArray(1700, numericCard))[5:])
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) < 2 {
			return
		}
		frame := encodeRow(binary.BigEndian.Uint16(body), body[2:])
		p := plan(t, cardCol, redactAll)
		r := Row{Plan: p, Cols: Columns(nil, p, testCols)}
		out, err := r.Mask(frame)
		var ue *masking.UnreadableError
		if err != nil {
			if !errors.As(err, &ue) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		var in, d pgproto3.DataRow
		if in.Decode(frame[5:]) != nil {
			return // a row pgproto3 refuses but Mask read: nothing to compare
		}
		if err := d.Decode(out[5:]); err != nil {
			t.Fatalf("the masked row does not decode: %v", err)
		}
		if len(d.Values) != len(in.Values) {
			t.Fatalf("%d values, want %d", len(d.Values), len(in.Values))
		}
		if len(d.Values) == len(testCols) && json.Valid(in.Values[3]) && d.Values[3] != nil && !json.Valid(d.Values[3]) {
			t.Fatalf("json %q became %q", in.Values[3], d.Values[3])
		}
		check := plan(t, redactAll)
		again := Row{Plan: check, Cols: Columns(nil, check, testCols)}
		if _, err := again.Mask(out); err == nil && check.Masked() != 0 && coreIdempotent(t, in.Values...) {
			t.Fatalf("an entity survived: %q (%v)", out, check.Counts())
		}
	})
}

// FuzzCopyRow: a masked COPY row keeps its length header right and every
// delimiter (tab, comma) in place, and no entity is left in it.
func FuzzCopyRow(f *testing.F) {
	f.Add([]byte("alice@example.com\tx,4111 1111 1111 1111\tplain\n"))
	f.Add([]byte("\"Smith, J <alice@example.com>\",10.0.0.12,-----BEGIN PRIVATE KEY-----\\nMIIE\n"))
	f.Fuzz(func(t *testing.T, row []byte) {
		in := append([]byte{'d', 0, 0, 0, 0}, row...)
		binary.BigEndian.PutUint32(in[1:], uint32(len(in)-1))
		out := CopyRow(nil, plan(t, redactAll).Field(), in)
		if out[0] != 'd' || int(binary.BigEndian.Uint32(out[1:])) != len(out)-1 {
			t.Fatalf("frame %q", out)
		}
		delims := func(b []byte) int { return bytes.Count(b, []byte{'\t'})*1000 + bytes.Count(b, []byte{','}) }
		if delims(out[5:]) != delims(in[5:]) {
			t.Fatalf("delimiters changed: %q -> %q", in, out)
		}
		check := plan(t, redactAll)
		if again := CopyRow(nil, check.Field(), out); check.Masked() != 0 && coreIdempotent(t, bytes.FieldsFunc(row, isDelim)...) {
			t.Fatalf("an entity survived: %q -> %q", out, again)
		}
	})
}

func isDelim(r rune) bool { return r == '\t' || r == ',' }

// coreIdempotent reports whether the core's own masking of each text is
// final: masking it a second time changes nothing. It is not when a
// replacement frees a neighbour the core had read as glued to the entity
// ("a@b.cc0.0.0.0" becomes "<EMAIL_ADDRESS>0.0.0.0", whose 0.0.0.0 then
// stands alone): such inputs say nothing of the rewriter.
func coreIdempotent(t *testing.T, texts ...[]byte) bool {
	p := plan(t, redactAll)
	for _, s := range texts {
		once, _ := p.Field().Text(nil, s)
		if _, again := p.Field().Text(nil, once); again {
			return false
		}
	}
	return true
}

// Binary values of non-text types are read through pgx's codecs: an
// address in an inet, a card number in a numeric, become NULL; a
// timetz and a uuid with no entity pass as they are.
func TestRowBinaryNonText(t *testing.T) {
	p := plan(t, redactAll)
	fd := func(oid uint32) pgproto3.FieldDescription {
		return pgproto3.FieldDescription{Name: []byte("c"), DataTypeOID: oid, Format: 1}
	}
	r := Row{Plan: p, Cols: Columns(nil, p, []pgproto3.FieldDescription{fd(869), fd(1700), fd(1266), fd(2950)})}
	timetz := append(int8bin(3723000001), 0, 0, 0, 0)
	in := dataRow([]byte{2, 32, 0, 4, 10, 0, 0, 12}, numericCard, timetz, make([]byte, 16))
	out, err := r.Mask(in)
	if err != nil {
		t.Fatal(err)
	}
	var d pgproto3.DataRow
	if err := d.Decode(out[5:]); err != nil {
		t.Fatal(err)
	}
	if d.Values[0] != nil || d.Values[1] != nil || !bytes.Equal(d.Values[2], timetz) || len(d.Values[3]) != 16 {
		t.Errorf("%q", d.Values)
	}
	if _, err := r.Mask(dataRow([]byte{2, 32, 0, 4, 10}, nil, nil, nil)); err == nil {
		t.Error("a short inet is read")
	}
}

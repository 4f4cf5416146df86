package mysql

import (
	"context"
	"encoding/binary"
	"net"
	"strings"
	"testing"

	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// maskSet is the rules of the masking tests: every entity masked inside
// text, and any column named secret redacted whole.
func maskSet(t testing.TB) *masking.Set {
	s, err := masking.Compile([]masking.Rule{
		{Name: "pii", Strategy: masking.Mask, Entities: masking.EntityNames()},
		{Name: "secret", Strategy: masking.Redact, Columns: []string{"*.secret"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// serveMasked serves a return-mode mysql listener with masking rules set in
// front of the local MariaDB (127.0.0.1:3306) and returns its address;
// Serve ends with the test.
func serveMasked(t *testing.T, set *masking.Set) string {
	t.Helper()
	s := app.ListenerSettings{Name: "mask", Protocol: "mysql", Mode: app.ModeReturn, SpendOn: ports.SpendOnSent,
		Upstream: "127.0.0.1:3306", Masking: set}
	l := app.NewCore(app.CoreOptions{Sidecar: "mask", CP: fakecp.New(nil)}).Listener(s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); New(nil).Serve(ctx, ln, l) }()
	t.Cleanup(func() { cancel(); l.EndDrain(); <-done })
	return ln.Addr().String()
}

// maskColumn is one column of a test result: its type, collation, name.
type maskColumn struct {
	typ     byte
	charset uint16
	name    string
}

// maskTypes are the columns the fuzz target picks from.
var maskTypes = []maskColumn{
	{gm.MYSQL_TYPE_VAR_STRING, 45, "c"}, // utf8mb4
	{gm.MYSQL_TYPE_VAR_STRING, 8, "c"},  // latin1
	{gm.MYSQL_TYPE_BLOB, 63, "c"},       // binary
	{gm.MYSQL_TYPE_VAR_STRING, 54, "c"}, // utf16
	{gm.MYSQL_TYPE_VAR_STRING, 3, "c"},  // dec8: not decoded
	{gm.MYSQL_TYPE_LONGLONG, 63, "c"},   // BIGINT
	{gm.MYSQL_TYPE_LONG, 63, "c"},       // INT
	{gm.MYSQL_TYPE_DOUBLE, 63, "c"},     // DOUBLE
	{gm.MYSQL_TYPE_NEWDECIMAL, 63, "c"}, // DECIMAL
	{gm.MYSQL_TYPE_DATETIME, 63, "c"},   // DATETIME
	{gm.MYSQL_TYPE_TIME, 63, "c"},       // TIME
	{gm.MYSQL_TYPE_BIT, 63, "c"},        // BIT
	{gm.MYSQL_TYPE_VAR_STRING, 45, "secret"},
	{gm.MYSQL_TYPE_LONGLONG, 63, "secret"},
}

// newMasker returns a masker with plan p over cols, the columns' go-mysql
// view for parsing its output.
func newMasker(t testing.TB, p *masking.Plan, bin bool, cols []maskColumn) (*rowMasker, []*gm.Field) {
	m := &rowMasker{plan: p, binary: bin}
	m.start()
	var fields []*gm.Field
	for _, c := range cols {
		def := (&gm.Field{Table: []byte("t"), OrgTable: []byte("t"), Name: []byte(c.name), OrgName: []byte(c.name), Charset: c.charset, Type: c.typ}).Dump()
		if err := m.column(def); err != nil {
			t.Fatal(err)
		}
		f, err := gm.FieldData(def).Parse()
		if err != nil {
			t.Fatalf("go-mysql cannot read the column definition: %v", err)
		}
		fields = append(fields, f)
	}
	return m, fields
}

// textRow encodes values as a text-protocol row (nil: NULL).
func textRowOf(vals [][]byte) []byte {
	var b []byte
	for _, v := range vals {
		if v == nil {
			b = append(b, 0xfb)
			continue
		}
		b = wire.AppendLenencString(b, v)
	}
	return b
}

// binaryRowOf encodes values as a binary-protocol row of cols: raw is each
// value's bytes in its type's encoding (nil: NULL).
func binaryRowOf(cols []maskColumn, raw [][]byte) []byte {
	nb := wire.NullBitmapLen(len(cols))
	b := append([]byte{0}, make([]byte, nb)...)
	for i, v := range raw {
		if v == nil {
			b[1+(i+2)/8] |= 1 << ((i + 2) % 8)
			continue
		}
		switch cols[i].typ {
		case gm.MYSQL_TYPE_LONGLONG, gm.MYSQL_TYPE_DOUBLE:
			var x [8]byte
			copy(x[:], v)
			b = append(b, x[:]...)
		case gm.MYSQL_TYPE_LONG:
			var x [4]byte
			copy(x[:], v)
			b = append(b, x[:]...)
		case gm.MYSQL_TYPE_DATETIME, gm.MYSQL_TYPE_TIME:
			n := []int{0, 4, 7, 11, 8, 12}[len(v)%6]
			x := make([]byte, n)
			copy(x, v)
			if cols[i].typ == gm.MYSQL_TYPE_TIME && n != 0 && n != 8 && n != 12 {
				x = x[:0]
			}
			if cols[i].typ != gm.MYSQL_TYPE_TIME && n > 11 {
				x = x[:11]
			}
			b = append(append(b, byte(len(x))), x...)
		default:
			b = wire.AppendLenencString(b, v)
		}
	}
	return b
}

func TestMaskTextRow(t *testing.T) {
	p := maskSet(t).For(domain.Analysis{}, domain.Facts{})
	cols := []maskColumn{maskTypes[0], maskTypes[5], maskTypes[12], maskTypes[13], maskTypes[1]}
	m, fields := newMasker(t, p, false, cols)
	out, err := m.row(textRowOf([][]byte{[]byte("mail alice@example.com"), []byte("4111111111111111"), []byte("s3"), []byte("7"), []byte("Jos\xe9 bob@example.com")}))
	if err != nil {
		t.Fatal(err)
	}
	vals, err := gm.RowData(out).Parse(fields, false, nil)
	if err != nil {
		t.Fatalf("go-mysql cannot read the masked row: %v", err)
	}
	want := []any{"mail *****@*******.***", nil, "<REDACTED>", nil, "Jos\xe9 ***@*******.***"}
	for i, w := range want {
		got := vals[i].Value()
		if b, ok := got.([]byte); ok {
			got = string(b)
		}
		if got != w {
			t.Errorf("column %d: %q, want %q", i, got, w)
		}
	}
	if c := p.Counts(); len(c) != 2 || c[0].Values != 3 || c[1].Values != 2 {
		t.Errorf("counts %+v", c)
	}
}

func TestMaskBinaryRow(t *testing.T) {
	p := maskSet(t).For(domain.Analysis{}, domain.Facts{})
	cols := []maskColumn{maskTypes[5], maskTypes[0], maskTypes[6], maskTypes[3]}
	m, fields := newMasker(t, p, true, cols)
	card := binary.LittleEndian.AppendUint64(nil, 4111111111111111)
	seven := binary.LittleEndian.AppendUint32(nil, 7)
	out, err := m.row(binaryRowOf(cols, [][]byte{card, []byte("x alice@example.com"), seven, []byte("\x00a\x00@\x00b\x00.\x00c\x00o")}))
	if err != nil {
		t.Fatal(err)
	}
	vals, err := gm.RowData(out).Parse(fields, true, nil)
	if err != nil {
		t.Fatalf("go-mysql cannot read the masked row: %v", err)
	}
	if vals[0].Value() != nil || string(vals[1].AsString()) != "x *****@*******.***" || vals[2].AsInt64() != 7 ||
		string(vals[3].AsString()) != "\x00*\x00@\x00*\x00.\x00*\x00*" {
		t.Errorf("masked row %v %q %v %q", vals[0].Value(), vals[1].AsString(), vals[2].Value(), vals[3].AsString())
	}
}

// A strict rule cannot read a value in a character set the masking does
// not decode: the result is withheld with the masking's error.
func TestMaskUnreadableCharset(t *testing.T) {
	p := maskSet(t).For(domain.Analysis{}, domain.Facts{})
	m, _ := newMasker(t, p, false, []maskColumn{maskTypes[4]})
	_, err := m.row(textRowOf([][]byte{[]byte("alice@example.com")}))
	if err == nil || !strings.Contains(err.Error(), "dec8") {
		t.Fatalf("err %v", err)
	}
}

// FuzzMaskRow masks a row of fuzzed columns and values, in the text or the
// binary protocol (or raw bytes as a row). Whatever the masker returns
// without an error parses with go-mysql's row reader, and each text value
// is the core's masking of the value read in its column's character set
// (so no entity the core finds there is sent in clear).
func FuzzMaskRow(f *testing.F) {
	f.Add([]byte{0, 5, 12}, []byte("alice@example.com\x004111111111111111\x00x"), false, false)
	f.Add([]byte{0, 5, 1, 3, 13}, []byte("4111 1111 1111 1111\x00\x11\x22\x33\x44\x55\x66\x77\x88\x00Jos\xe9 a@b.co\x00\x00a\x00@\x00b\x00.\x00c\x00o\x00x"), true, false)
	f.Add([]byte{9, 10, 11, 7, 8, 6, 2}, []byte("\x01\x02\x03\x04\x05\x06\x07\x00\x01\x02\x03\x04\x05\x06\x07\x08\x00\xff\x00\x00\x00\x00\x00\xf0?\x0012.5\x00\x00\x00\x00\x01\x00AKIAABCDEFGHIJKLMNOP"), true, false)
	f.Add([]byte{0, 1}, []byte{0x05, 'a', '@', 'b', '.', 'c', 0xfb}, false, true)
	set := maskSet(f)
	f.Fuzz(func(t *testing.T, types, vals []byte, bin, raw bool) {
		if len(types) == 0 || len(types) > 16 {
			return
		}
		cols := make([]maskColumn, len(types))
		for i, x := range types {
			cols[i] = maskTypes[int(x)%len(maskTypes)]
		}
		parts := strings.Split(string(vals), "\x00\x00")
		row := vals
		if !raw {
			v := make([][]byte, len(cols))
			for i := range v {
				if i < len(parts) {
					v[i] = []byte(parts[i])
				}
			}
			if bin {
				row = binaryRowOf(cols, v)
			} else {
				row = textRowOf(v)
			}
		}
		m, fields := newMasker(t, set.For(domain.Analysis{}, domain.Facts{}), bin, cols)
		out, err := m.row(row)
		if err != nil {
			return
		}
		got, perr := gm.RowData(out).Parse(fields, bin, nil)
		if perr != nil {
			if _, rerr := gm.RowData(row).Parse(fields, bin, nil); rerr == nil { // go-mysql reads the row as the upstream sent it
				t.Fatalf("go-mysql cannot read the masked row %q (from %q): %v", out, row, perr)
			}
			return
		}
		in, err := gm.RowData(row).Parse(fields, bin, nil)
		if err != nil {
			return
		}
		check := set.For(domain.Analysis{}, domain.Facts{})
		for i, v := range got {
			if !isText(cols[i].typ) || in[i].Type != gm.FieldValueTypeString {
				continue
			}
			want, null := maskedAs(check.Field("t", cols[i].name), charsetOfCollation(cols[i].charset), in[i].AsString())
			if null != (v.Type == gm.FieldValueTypeNull) || (!null && string(v.AsString()) != string(want)) {
				t.Fatalf("column %d: %q masked as %q, want %q (null %v)", i, in[i].AsString(), v.AsString(), want, null)
			}
		}
	})
}

// maskedAs is what the core makes of text value v of a column in
// character set c: the masked text in c, or null when it cannot be
// written back in c.
func maskedAs(f *masking.Field, c valueCharset, v []byte) (out []byte, null bool) {
	if c.enc == nil {
		out, _ = f.Text(nil, v)
		return out, false
	}
	u, _ := c.enc.NewDecoder().Bytes(v)
	t, changed := f.Text(nil, u)
	if !changed {
		return v, false
	}
	b, err := c.enc.NewEncoder().Bytes(t)
	return b, err != nil
}

// Under best_effort the same value is sent as it is and counted.
func TestMaskUnreadableBestEffort(t *testing.T) {
	s, err := masking.Compile([]masking.Rule{{Name: "pii", Strategy: masking.Mask, Entities: masking.EntityNames(), Mode: masking.BestEffort}})
	if err != nil {
		t.Fatal(err)
	}
	p := s.For(domain.Analysis{}, domain.Facts{})
	m, _ := newMasker(t, p, false, []maskColumn{maskTypes[4]})
	row := textRowOf([][]byte{[]byte("alice@example.com")})
	out, err := m.row(row)
	if err != nil || string(out) != string(row) || p.Uninspected != 1 {
		t.Fatalf("out %q err %v uninspected %d", out, err, p.Uninspected)
	}
}

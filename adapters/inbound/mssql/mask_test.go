package mssql

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

// withMasking gives the listener masking rules.
func withMasking(t testing.TB, rules ...masking.Rule) option {
	set, err := masking.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	return func(s *app.ListenerSettings, _ *app.CoreOptions, _ *tdstest.Server) { s.Masking = set }
}

var (
	// latin1 is SQL_Latin1_General_CP1_CI_AS (code page 1252, sort id 52).
	latin1 = [5]byte{0x09, 0x04, 0xD0, 0x00, 0x34}
	// japanese is Japanese_CI_AS (LCID 0x0411, code page 932: not decoded).
	japanese = [5]byte{0x11, 0x04, 0xD0, 0x00, 0x00}
)

func varcharCol(name string, coll [5]byte) tds.Column {
	return tds.Column{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeBigVarChar, Size: 200, Collation: coll}, Name: name}
}

// piiRule masks every entity in every text value.
var piiRule = masking.Rule{Name: "pii", Entities: masking.EntityNames(), Strategy: masking.Mask}

// answerWith answers the batch text with stream then a final DONE, and
// the listener's relearn batch (session.relearn) with the database.
func answerWith(text string, stream func() []byte) option {
	return withBatchAnswer(func(b *tds.SQLBatch) []byte {
		switch strings.TrimSpace(b.Text) {
		case relearnText:
			return (&tds.Done{}).Append((&tds.ErrorInfo{Number: 50000, State: relearnState, Message: "0 hoopdb"}).Append(nil, tds.TokenInfo))
		case text:
			return (&tds.Done{Status: tds.DoneCount, RowCount: 1}).Append(stream())
		}
		return nil
	})
}

// rows reads every row of q on c as go-mssqldb gives them.
func rows(t *testing.T, c *sql.Conn, q string) ([][]any, error) {
	t.Helper()
	r, err := c.QueryContext(context.Background(), q)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cols, _ := r.Columns()
	var out [][]any
	for r.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := r.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		out = append(out, vals)
	}
	return out, r.Err()
}

// A result of every kind of column a card number or an email can hide in,
// as a ROW and as an NBCROW, goes to go-mssqldb masked: text values with
// the entity masked in place (nvarchar as UTF-16, varchar in its code page
// 1252, é kept), a number holding a card number and a column masked whole
// (a fixed-size INT, which a ROW cannot say NULL for) as NULL, and a card
// number that fails Luhn as it was. The audit line counts per rule.
func TestMaskRowsReachGoMSSQLDBMasked(t *testing.T) {
	cols := []tds.Column{
		tdstest.NVarCharColumn("card"),
		varcharCol("contact", latin1),
		varcharCol("other", latin1),
		{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeIntN, Size: 8}, Name: "num"},
		varcharCol("name", latin1),
		{Type: tds.TypeInfo{Type: tds.TypeInt4, Size: 4}, Name: "secret"},
		{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeDecimalN, Size: 9, Precision: 19}, Name: "amount"},
	}
	card := []byte{0x01, 0xc7, 0xf1, 0x68, 0xa5, 0x08, 0x9b, 0x0e, 0x00} // 4111111111111111 as DECIMAL(19, 0)
	values := [][]byte{tdstest.NVarChar("4111 1111 1111 1111"), []byte("alice@example.com"), []byte("4111 1111 1111 1112"),
		{0xc7, 0xf1, 0x68, 0xa5, 0x08, 0x9b, 0x0e, 0x00}, []byte("Jos\xe9 <alice@example.com>"), tdstest.Int4(42), card}
	stream := func() []byte {
		out := (&tds.ColMetadata{Columns: cols}).Append(nil)
		out = (&tds.Row{Values: values}).Append(out, cols)
		nulls := append([][]byte{}, values...)
		nulls[2] = nil
		return (&tds.Row{Values: nulls}).AppendNBC(out, cols)
	}
	whole := masking.Rule{Name: "secret", Columns: []string{"secret"}, Strategy: masking.Redact}
	f := newFixture(t, withMasking(t, piiRule, whole), answerWith("SELECT pii", stream))
	got, err := rows(t, f.conn(""), "SELECT pii")
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"**** **** **** ****", "*****@*******.***", "4111 1111 1111 1112", nil, "José <*****@*******.***>", nil, nil}
	if len(got) != 2 {
		t.Fatalf("got %d rows, want 2", len(got))
	}
	for r, row := range got {
		for i, v := range row {
			w := want[i]
			if r == 1 && i == 2 {
				w = nil
			}
			if v != w {
				t.Errorf("row %d column %s: got %#v, want %#v", r, cols[i].Name, v, w)
			}
		}
	}
	f.waitDecision("masked")
	f.mu.Lock()
	defer f.mu.Unlock()
	if m := f.masked[0].Masked; m["pii"] != 10 || m["secret"] != 2 {
		t.Fatalf("audit counts %v, want pii 10 (5 per row), secret 2", m)
	}
}

// The column rule of the issue: partial with keep_last 4 shows the last
// four digits of a card column only; hash gives the same text on two
// connections.
func TestMaskColumnRulesPartialAndHash(t *testing.T) {
	cols := []tds.Column{tdstest.NVarCharColumn("card"), tdstest.NVarCharColumn("email")}
	stream := func() []byte {
		out := (&tds.ColMetadata{Columns: cols}).Append(nil)
		return (&tds.Row{Values: [][]byte{tdstest.NVarChar("4111111111111111"), tdstest.NVarChar("bob@example.com")}}).Append(out, cols)
	}
	partial := masking.Rule{Name: "cards", Columns: []string{"card"}, Strategy: masking.Partial, KeepLast: 4}
	hash := masking.Rule{Name: "emails", Columns: []string{"*.email"}, Strategy: masking.Hash, Key: []byte("0123456789abcdef")}
	f := newFixture(t, withMasking(t, partial, hash), answerWith("SELECT cols", stream))
	a, err := rows(t, f.conn(""), "SELECT cols")
	if err != nil {
		t.Fatal(err)
	}
	b, err := rows(t, f.conn("other"), "SELECT cols")
	if err != nil {
		t.Fatal(err)
	}
	if a[0][0] != "************1111" {
		t.Fatalf("partial: %v", a[0][0])
	}
	if h, _ := a[0][1].(string); len(h) != 32 || a[0][1] != b[0][1] {
		t.Fatalf("hash: %v on one connection, %v on the other", a[0][1], b[0][1])
	}
}

// A varchar in a code page the listener does not decode (932) under a
// strict rule: go-mssqldb gets ERROR 50000 state 128 naming the rule and
// the column, no row of it, and the connection serves the next statement.
// Under best_effort the value passes and is counted as uninspected.
func TestMaskUnreadableValue(t *testing.T) {
	cols := []tds.Column{varcharCol("kana", japanese)}
	stream := func() []byte {
		out := (&tds.ColMetadata{Columns: cols}).Append(nil)
		out = (&tds.Row{Values: [][]byte{[]byte("plain")}}).Append(out, cols)
		return (&tds.Row{Values: [][]byte{{0x82, 0xA0}}}).Append(out, cols)
	}
	t.Run("strict", func(t *testing.T) {
		f := newFixture(t, withMasking(t, piiRule), answerWith("SELECT kana", stream))
		c := f.conn("")
		got, err := rows(t, c, "SELECT kana")
		e := sqlErr(t, err, 50000)
		if e.State != 128 || !strings.Contains(e.Message, `masking rule "pii"`) || !strings.Contains(e.Message, "value of kana (") {
			t.Fatalf("error %d state %d: %s", e.Number, e.State, e.Message)
		}
		if len(got) > 1 {
			t.Fatalf("the unreadable row reached the client: %v", got)
		}
		var one int
		if err := c.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("the connection after a withheld result: %v", err)
		}
		f.waitDecision("mask_withheld")
	})
	t.Run("best_effort", func(t *testing.T) {
		lax := piiRule
		lax.Mode = masking.BestEffort
		f := newFixture(t, withMasking(t, lax), answerWith("SELECT kana", stream))
		got, err := rows(t, f.conn(""), "SELECT kana")
		if err != nil || len(got) != 2 {
			t.Fatalf("best_effort: %v %v", got, err)
		}
		f.waitDecision("masked")
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.masked[0].Uninspected != 1 {
			t.Fatalf("uninspected %d, want 1", f.masked[0].Uninspected)
		}
	})
}

// Rows stream across packets: thousands of rows, and an nvarchar(max) value
// of 300 KB in PLP chunks with an email at its end, all masked; a row over
// the 4 MiB the masking holds withholds the result, and the connection
// goes on.
func TestMaskRowsAcrossPackets(t *testing.T) {
	maxCol := tds.Column{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeNVarChar, Size: tds.MaxLenPLP, Collation: latin1}, Name: "doc"}
	cols := []tds.Column{tdstest.IntColumn("id"), tdstest.NVarCharColumn("card"), maxCol}
	row := func(out []byte, i int, doc string) []byte {
		return (&tds.Row{Values: [][]byte{tdstest.Int4(int32(i)), tdstest.NVarChar("card 4111 1111 1111 1111"), tdstest.NVarChar(doc)}}).Append(out, cols)
	}
	many := func() []byte {
		out := (&tds.ColMetadata{Columns: cols}).Append(nil)
		for i := range 3000 {
			out = row(out, i, "x")
		}
		return row(out, 3000, strings.Repeat("y", 150_000)+" carol@example.com")
	}
	huge := func() []byte {
		out := (&tds.ColMetadata{Columns: cols}).Append(nil)
		out = row(out, 1, "small")
		return row(out, 2, strings.Repeat("z", 3<<20))
	}
	f := newFixture(t, withMasking(t, piiRule), answerWith("SELECT many", many), answerWith("SELECT huge", huge))
	c := f.conn("")
	got, err := rows(t, c, "SELECT many")
	if err != nil || len(got) != 3001 {
		t.Fatalf("%d rows, %v", len(got), err)
	}
	for _, r := range got {
		if r[1] != "card **** **** **** ****" {
			t.Fatalf("row %v: card %v", r[0], r[1])
		}
	}
	if doc := got[3000][2].(string); !strings.HasSuffix(doc, " *****@*******.***") || len(doc) != 150_018 {
		t.Fatalf("the long value ends %q (%d bytes)", doc[len(doc)-40:], len(doc))
	}
	got, err = rows(t, c, "SELECT huge")
	if e := sqlErr(t, err, 50000); e.State != 128 || len(got) > 1 {
		t.Fatalf("over 4 MiB: %v, %d rows", e, len(got))
	}
	var one int
	if err := c.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("the connection after a withheld result: %v", err)
	}
}

// An OUTPUT parameter's value (RETURNVALUE) is masked as a column named
// after the parameter; the token decodes with its masked value.
func TestMaskReturnValue(t *testing.T) {
	set, err := masking.Compile([]masking.Rule{piiRule, {Name: "cards", Columns: []string{"card"}, Strategy: masking.Partial, KeepLast: 4}})
	if err != nil {
		t.Fatal(err)
	}
	ti := tdstest.NVarCharColumn("").Type
	for name, want := range map[string]string{"@card": "**** **** **** 1111", "@note": "mail *****@*******.***"} {
		v := "4111 1111 1111 1111"
		if name == "@note" {
			v = "mail alice@example.com"
		}
		out := maskTokens(set.For(domain.Analysis{}, domain.Facts{}), returnValueToken(name, ti, tdstest.NVarChar(v)))
		var sc tds.Scanner
		tok, err := sc.Next(out)
		if err != nil || len(tok.Raw) != len(out) {
			t.Fatalf("%s: %v", name, err)
		}
		rv, err := tds.DecodeReturnValue(tok.Body)
		if err != nil || rv.Name != name || tds.DecodeUCS2(rv.Value) != want {
			t.Fatalf("%s: %q (%v), want %q", name, tds.DecodeUCS2(rv.Value), err, want)
		}
	}
}

// FreeTDS tsql, a second client, reads the rewritten rows: the NBCROW that
// carries a masked card (nvarchar), a masked email (varchar, code page
// 1252) and a bigint card number as NULL.
func TestMaskFreeTDS(t *testing.T) {
	cols := []tds.Column{tdstest.NVarCharColumn("card"), varcharCol("contact", latin1),
		{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeIntN, Size: 8}, Name: "num"}}
	stream := func() []byte {
		out := (&tds.ColMetadata{Columns: cols}).Append(nil)
		return (&tds.Row{Values: [][]byte{tdstest.NVarChar("4111 1111 1111 1111"), []byte("alice@example.com"),
			{0xc7, 0xf1, 0x68, 0xa5, 0x08, 0x9b, 0x0e, 0x00}}}).Append(out, cols)
	}
	f := newFixture(t, withMasking(t, piiRule), answerWith("SELECT pii", stream))
	out := tsqlRun(t, f.addr, "SELECT pii\ngo\nexit\n")
	if !strings.Contains(out, "**** **** **** ****") || !strings.Contains(out, "*****@*******.***") || !strings.Contains(out, "NULL") ||
		strings.Contains(out, "4111") || strings.Contains(out, "alice") {
		t.Fatalf("tsql output:\n%s", out)
	}
}

// A COMPUTE row (ALTROW) is not read: under a strict rule it withholds the
// result (ERROR 50000 state 128 in its place, then the final DONE with
// DONE_ERROR), and the rows before it are sent.
func TestMaskComputeRowWithheld(t *testing.T) {
	intCol := []tds.Column{{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeIntN, Size: 4}, Name: "id"}}
	alt := &tds.AltMetadata{ID: 1, ByCols: []uint16{1}, Columns: []tds.AltColumn{{Op: 0x4D, Operand: 1, Column: intCol[0]}}}
	stream := (&tds.Row{Values: [][]byte{{1, 0, 0, 0}}}).Append((&tds.ColMetadata{Columns: intCol}).Append(nil), intCol)
	stream = (&tds.AltRow{ID: 1, Values: [][]byte{{42, 0, 0, 0}}}).Append(alt.Append(stream), intCol)
	set, err := masking.Compile([]masking.Rule{piiRule})
	if err != nil {
		t.Fatal(err)
	}
	out := maskTokens(set.For(domain.Analysis{}, domain.Facts{}), stream)
	var types []byte
	var e *tds.ErrorInfo
	sc := tds.Scanner{}
	for len(out) > 0 {
		tok, err := sc.Next(out)
		if err != nil {
			t.Fatal(err)
		}
		if tok.Type == tds.TokenError {
			e, _ = tds.DecodeErrorInfo(tok.Body)
		}
		types, out = append(types, tok.Type), out[len(tok.Raw):]
	}
	want := []byte{tds.TokenColMetadata, tds.TokenRow, tds.TokenAltMetadata, tds.TokenError, tds.TokenDone}
	if string(types) != string(want) || e == nil || e.Number != 50000 || e.State != 128 || !strings.Contains(e.Message, "COMPUTE") {
		t.Fatalf("tokens % x (want % x), error %+v", types, want, e)
	}
}

package mssql

import (
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

// maskTokens runs the tokens of stream that a Scanner frames through a
// masker under plan p, as the relay does, and returns what the client
// would get.
func maskTokens(p *masking.Plan, stream []byte) []byte {
	var sc tds.Scanner
	m := newMasker(p)
	for len(stream) > 0 {
		t, err := sc.Next(stream)
		if err != nil {
			break
		}
		m.token(t, &sc)
		stream = stream[len(t.Raw):]
	}
	m.end()
	return m.out
}

// fuzzSeeds are result streams with entities in every column kind the
// masking reads, as ROW and NBCROW.
func fuzzSeeds() [][]byte {
	cols := []tds.Column{
		tdstest.NVarCharColumn("card"),
		varcharCol("contact", latin1),
		{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeIntN, Size: 8}, Name: "num"},
		{Type: tds.TypeInfo{Type: tds.TypeInt4, Size: 4}, Name: "secret"},
		{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeNVarChar, Size: tds.MaxLenPLP, Collation: latin1}, Name: "doc"},
		varcharCol("kana", japanese),
	}
	vals := [][]byte{tdstest.NVarChar("4111 1111 1111 1111"), []byte("Jos\xe9 alice@example.com"),
		{0xc7, 0xf1, 0x68, 0xa5, 0x08, 0x9b, 0x0e, 0x00}, tdstest.Int4(7), tdstest.NVarChar("ip 10.1.2.3, ssn 123-45-6780"), []byte("plain")}
	base := (&tds.ColMetadata{Columns: cols}).Append(nil)
	row := (&tds.Row{Values: vals}).Append(append([]byte{}, base...), cols)
	nulls := append([][]byte{}, vals...)
	nulls[1], nulls[4] = nil, nil
	nbc := (&tds.Row{Values: nulls}).AppendNBC(append([]byte{}, base...), cols)
	kana := append([][]byte{}, vals...)
	kana[5] = []byte{0x82, 0xA0}
	withheld := (&tds.Row{Values: kana}).Append(append([]byte{}, row...), cols)
	done := (&tds.Done{Status: tds.DoneCount, RowCount: 1}).Append(nil)
	return [][]byte{append(row, done...), append(nbc, done...), append(withheld, done...),
		append(returnValueToken("@card", tdstest.NVarCharColumn("").Type, tdstest.NVarChar("4111 1111 1111 1111")), done...)}
}

// returnValueToken is a RETURNVALUE token of an OUTPUT parameter.
func returnValueToken(name string, ti tds.TypeInfo, v []byte) []byte {
	out := append([]byte{tds.TokenReturnValue, 0, 0, byte(tds.UCS2Len(name))}, tds.AppendUCS2(nil, name)...)
	out = append(out, 1, 0, 0, 0, 0, 0, 0)
	return tds.AppendValue(ti.Append(out), ti, v)
}

// FuzzMaskRows: whatever result stream the upstream sends, what the masking
// makes of the tokens it frames is framed again by the listener's own token
// reader (tds.Scanner, as go-mssqldb reads it: every ROW and NBCROW decodes
// against its COLMETADATA), and no value in it holds an entity the pii rule
// asks for in clear: masking it again changes nothing, and no number holds
// one.
func FuzzMaskRows(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	set, err := masking.Compile([]masking.Rule{piiRule, {Name: "secret", Columns: []string{"secret"}, Strategy: masking.Redact}})
	if err != nil {
		f.Fatal(err)
	}
	check, _ := masking.Compile([]masking.Rule{piiRule})
	f.Fuzz(func(t *testing.T, stream []byte) {
		out := maskTokens(set.For(domain.Analysis{}, domain.Facts{}), stream)
		cp := check.For(domain.Analysis{}, domain.Facts{})
		var sc tds.Scanner
		for len(out) > 0 {
			tok, err := sc.Next(out)
			if err != nil {
				t.Fatalf("the masked stream does not frame: %v at % x", err, out[:min(len(out), 32)])
			}
			out = out[len(tok.Raw):]
			var row *tds.Row
			cols := sc.Columns
			switch tok.Type {
			case tds.TokenReturnValue:
				rv, err := tds.DecodeReturnValue(tok.Body)
				if err != nil {
					t.Fatalf("a masked RETURNVALUE does not decode: %v", err)
				}
				row, cols = &tds.Row{Values: [][]byte{rv.Value}}, []tds.Column{{Type: rv.Type, Name: rv.Name}}
			case tds.TokenRow:
				row, _, err = tds.DecodeRow(tok.Body, sc.Columns)
			case tds.TokenNBCRow:
				row, _, err = tds.DecodeNBCRow(tok.Body, sc.Columns)
			default:
				continue
			}
			if err != nil {
				t.Fatalf("a masked row does not decode: %v", err)
			}
			for i, v := range row.Values {
				if v == nil {
					continue
				}
				c := cols[i]
				again, null, err := maskValue(cp.Field("", c.Name), c.Type, v)
				if err != nil { // a strict rule withholds such a row: it is never sent
					t.Fatalf("column %s: an unreadable value was sent: %v", c.Name, err)
				}
				if null || !same(again, v) {
					t.Fatalf("column %s: % x still holds an entity in clear", c.Name, v)
				}
			}
		}
	})
}

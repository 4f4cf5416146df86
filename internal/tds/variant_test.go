package tds

import (
	"bytes"
	"testing"
)

// A sql_variant column (SERVERPROPERTY's type) frames: the scanner reads
// its ROWs (a value and a NULL) and reaches the DONE after them.
func TestScannerFramesSQLVariant(t *testing.T) {
	cols := []Column{{Flags: 1, Type: TypeInfo{Type: TypeVariant, Size: 8016}, Name: "v"}}
	value := []byte{TypeInt4, 0, 42, 0, 0, 0} // base type int, no properties, 42
	b := (&ColMetadata{Columns: cols}).Append(nil)
	b = (&Row{Values: [][]byte{value}}).Append(b, cols)
	b = (&Row{Values: [][]byte{nil}}).Append(b, cols)
	b = (&Done{Status: DoneCount, RowCount: 2}).Append(b)
	var sc Scanner
	var got []byte
	var rows [][]byte
	for len(b) > 0 {
		tok, err := sc.Next(b)
		if err != nil {
			t.Fatalf("after %x: %v", got, err)
		}
		got = append(got, tok.Type)
		if tok.Type == TokenRow {
			r, _, err := DecodeRow(tok.Body, sc.Columns)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, r.Values[0])
		}
		b = b[len(tok.Raw):]
	}
	if !bytes.Equal(got, []byte{TokenColMetadata, TokenRow, TokenRow, TokenDone}) {
		t.Fatalf("tokens %x", got)
	}
	if !bytes.Equal(rows[0], value) || rows[1] != nil {
		t.Fatalf("values %x", rows)
	}
}

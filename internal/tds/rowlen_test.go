package tds

import "testing"

// TestRowLenMatchesDecodeRow: the Scanner's allocation-free RowLen frames a
// ROW exactly as DecodeRow does, and refuses the same short input.
func TestRowLenMatchesDecodeRow(t *testing.T) {
	cols := []Column{
		{Type: TypeInfo{Type: TypeIntN, Size: 4}},
		{Type: TypeInfo{Type: TypeNVarChar, Size: 100}},
	}
	row := &Row{Values: [][]byte{{1, 0, 0, 0}, {'h', 0, 'i', 0}}}
	b := row.Append(nil, cols)[1:]
	_, want, err := DecodeRow(b, cols)
	if err != nil {
		t.Fatal(err)
	}
	got, err := RowLen(b, cols, false)
	if err != nil || got != want || got != len(b) {
		t.Fatalf("RowLen = %d, %v; DecodeRow used %d of %d", got, err, want, len(b))
	}
	if _, err := RowLen(b[:len(b)-1], cols, false); err == nil {
		t.Fatal("RowLen of a cut row: no error")
	}
}

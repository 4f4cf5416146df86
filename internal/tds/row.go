package tds

// Row is a ROW token (0xD1), MS-TDS 2.2.7.19: one value per column of the
// preceding COLMETADATA, nil for NULL.
type Row struct {
	Values [][]byte
}

// DecodeRow parses a ROW body (after the token byte) against cols and
// returns the bytes it used.
func DecodeRow(b []byte, cols []Column) (*Row, int, error) {
	r := &reader{b: b}
	row := &Row{Values: make([][]byte, 0, min(len(cols), len(b)))}
	for _, c := range cols {
		v, err := readValue(r, c.Type)
		if err != nil {
			return nil, 0, err
		}
		row.Values = append(row.Values, v)
	}
	return row, r.off, nil
}

// DecodeNBCRow parses an NBCROW body (0xD2, MS-TDS 2.2.7.17): a null bitmap,
// then values of the non-NULL columns only.
func DecodeNBCRow(b []byte, cols []Column) (*Row, int, error) {
	r := &reader{b: b}
	bitmap := r.bytes((len(cols)+7)/8, "NBCROW bitmap")
	if r.err != nil {
		return nil, 0, r.err
	}
	row := &Row{Values: make([][]byte, 0, min(len(cols), len(b)))}
	for i, c := range cols {
		if bitmap[i/8]&(1<<(i%8)) != 0 {
			row.Values = append(row.Values, nil)
			continue
		}
		v, err := readValue(r, c.Type)
		if err != nil {
			return nil, 0, err
		}
		row.Values = append(row.Values, v)
	}
	return row, r.off, nil
}

// Append writes a ROW token with values typed by cols.
func (row *Row) Append(dst []byte, cols []Column) []byte {
	dst = append(dst, TokenRow)
	for i, c := range cols {
		var v []byte
		if i < len(row.Values) {
			v = row.Values[i]
		}
		dst = AppendValue(dst, c.Type, v)
	}
	return dst
}

// AppendNBC writes the row as an NBCROW token (0xD2, MS-TDS 2.2.7.17) with
// values typed by cols: the null bitmap, then the values that are not
// NULL. Unlike a ROW it can say NULL for a column of a fixed-size type.
func (row *Row) AppendNBC(dst []byte, cols []Column) []byte {
	dst = append(dst, TokenNBCRow)
	at := len(dst)
	dst = append(dst, make([]byte, (len(cols)+7)/8)...)
	for i, c := range cols {
		if i >= len(row.Values) || row.Values[i] == nil {
			dst[at+i/8] |= 1 << (i % 8)
			continue
		}
		dst = AppendValue(dst, c.Type, row.Values[i])
	}
	return dst
}

// RowLen returns the length of a ROW body (nbc false) or an NBCROW body (nbc
// true) at the start of b, typed by cols, without keeping its values: a
// RowWalker's walk over b, so the Scanner's framing of a large result
// allocates nothing per row. Errors: ErrShort when the row does not end
// in b.
func RowLen(b []byte, cols []Column, nbc bool) (int, error) {
	var w RowWalker
	w.start(cols, nbc)
	w.alias = true
	n, done := w.Feed(b)
	if !done {
		return 0, short("row")
	}
	return n, nil
}

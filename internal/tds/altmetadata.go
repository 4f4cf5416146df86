package tds

import (
	"encoding/binary"
	"fmt"
)

// AltColumn is one ComputeData of ALTMETADATA: the aggregate operator
// (Op: AOPSUM 0x4D, AOPCNT 0x09, …), the column of the result set it
// applies to (Operand, 1-based), and the column's own metadata.
type AltColumn struct {
	Op      byte
	Operand uint16
	Column
}

// AltMetadata is the ALTMETADATA token (0x88), MS-TDS 2.2.7.1: the columns
// of the totals a COMPUTE clause adds to a result set (SQL Server 2008 R2
// and older send it; deprecated in TDS 7.4). ID ties it to the ALTROW
// tokens that follow; ByCols are the result columns of COMPUTE … BY.
type AltMetadata struct {
	ID      uint16
	ByCols  []uint16
	Columns []AltColumn
}

// DecodeAltMetadata parses an ALTMETADATA body (after the token byte) and
// returns the bytes it used: Count USHORT, Id USHORT, ByCols UCHAR and as
// many ColNum USHORTs, then Count times Op BYTE, Operand USHORT, UserType
// ULONG, Flags USHORT, TYPE_INFO, [TableName], ColName B_VARCHAR. Errors:
// ErrShort, *UnknownTypeError, ErrCannotFrame (wrapped: a column flagged
// encrypted).
func DecodeAltMetadata(b []byte) (*AltMetadata, int, error) {
	r := &reader{b: b}
	n := int(r.u16("ALTMETADATA Count"))
	am := &AltMetadata{ID: r.u16("ALTMETADATA Id")}
	by := int(r.u8("ALTMETADATA ByCols"))
	for range by {
		am.ByCols = append(am.ByCols, r.u16("ALTMETADATA ColNum"))
	}
	if r.err != nil {
		return nil, 0, r.err
	}
	for range n {
		var c AltColumn
		c.Op = r.u8("ALTMETADATA Op")
		c.Operand = r.u16("ALTMETADATA Operand")
		c.UserType = r.u32("UserType")
		c.Flags = r.u16("Flags")
		if err := decodeColumnRest(r, &c.Column); err != nil {
			return nil, 0, err
		}
		am.Columns = append(am.Columns, c)
	}
	return am, r.off, nil
}

// Append writes the whole token to dst.
func (am *AltMetadata) Append(dst []byte) []byte {
	le := binary.LittleEndian
	dst = append(dst, TokenAltMetadata)
	dst = le.AppendUint16(dst, uint16(len(am.Columns)))
	dst = le.AppendUint16(dst, am.ID)
	dst = append(dst, byte(len(am.ByCols)))
	for _, c := range am.ByCols {
		dst = le.AppendUint16(dst, c)
	}
	for _, c := range am.Columns {
		dst = append(dst, c.Op)
		dst = le.AppendUint16(dst, c.Operand)
		dst = le.AppendUint32(dst, c.UserType)
		dst = le.AppendUint16(dst, c.Flags)
		dst = appendColumnRest(dst, c.Column)
	}
	return dst
}

// columns returns the plain columns of am (what an ALTROW's values follow).
func (am *AltMetadata) columns() []Column {
	cols := make([]Column, len(am.Columns))
	for i, c := range am.Columns {
		cols[i] = c.Column
	}
	return cols
}

// AltRow is an ALTROW token (0xD3), MS-TDS 2.2.7.2: the Id of its
// ALTMETADATA, then one TYPE_VARBYTE value per column of it (nil = NULL).
type AltRow struct {
	ID     uint16
	Values [][]byte
}

// DecodeAltRow parses an ALTROW body (after the token byte) against the
// ALTMETADATA columns by Id seen before it in the result set, and returns
// the bytes it used. Errors: ErrShort; ErrCannotFrame (wrapped) for an Id
// no ALTMETADATA announced.
func DecodeAltRow(b []byte, alt map[uint16][]Column) (*AltRow, int, error) {
	r := &reader{b: b}
	ar := &AltRow{ID: r.u16("ALTROW Id")}
	if r.err != nil {
		return nil, 0, r.err
	}
	cols, ok := alt[ar.ID]
	if !ok {
		return nil, 0, fmt.Errorf("%w: ALTROW of Id %d follows no ALTMETADATA of that Id", ErrCannotFrame, ar.ID)
	}
	row, n, err := DecodeRow(b[r.off:], cols)
	if err != nil {
		return nil, 0, err
	}
	ar.Values = row.Values
	return ar, r.off + n, nil
}

// Append writes an ALTROW token with values typed by cols.
func (ar *AltRow) Append(dst []byte, cols []Column) []byte {
	dst = append(dst, TokenAltRow)
	dst = binary.LittleEndian.AppendUint16(dst, ar.ID)
	for i, c := range cols {
		var v []byte
		if i < len(ar.Values) {
			v = ar.Values[i]
		}
		dst = AppendValue(dst, c.Type, v)
	}
	return dst
}

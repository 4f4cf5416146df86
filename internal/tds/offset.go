package tds

import "encoding/binary"

// Offset is the OFFSET token (0x78), MS-TDS 2.2.7 (OFFSET): where in the
// client's SQL text a keyword occurs (Identifier: its kind; Len: its
// offset). Servers before TDS 7.2 sent it; a 7.4 stream may still carry it.
type Offset struct {
	Identifier uint16
	Len        uint16
}

// offsetLen is the OFFSET body's length: two USHORTs.
const offsetLen = 4

// DecodeOffset parses an OFFSET body (after the token byte). Errors:
// ErrShort.
func DecodeOffset(b []byte) (*Offset, error) {
	r := &reader{b: b}
	o := &Offset{Identifier: r.u16("OFFSET Identifier"), Len: r.u16("OFFSET OffsetLen")}
	if r.err != nil {
		return nil, r.err
	}
	return o, nil
}

// Append writes the whole token to dst.
func (o *Offset) Append(dst []byte) []byte {
	dst = append(dst, TokenOffset)
	dst = binary.LittleEndian.AppendUint16(dst, o.Identifier)
	return binary.LittleEndian.AppendUint16(dst, o.Len)
}

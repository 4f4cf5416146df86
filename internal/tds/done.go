package tds

import "encoding/binary"

// DONE status bits, MS-TDS 2.2.7.6.
const (
	DoneFinal    uint16 = 0x0000
	DoneMore     uint16 = 0x0001
	DoneError    uint16 = 0x0002
	DoneInXact   uint16 = 0x0004
	DoneCount    uint16 = 0x0010
	DoneAttn     uint16 = 0x0020
	DoneSrvError uint16 = 0x0100
)

// doneLen is the body of DONE/DONEPROC/DONEINPROC from TDS 7.2 on.
const doneLen = 12

// Done is a DONE (0xFD), DONEPROC (0xFE) or DONEINPROC (0xFF) token,
// MS-TDS 2.2.7.6–8. RowCount is valid when Status has DoneCount.
type Done struct {
	Token    byte
	Status   uint16
	CurCmd   uint16
	RowCount uint64
}

// DecodeDone parses the 12-byte body following the token byte tok.
func DecodeDone(tok byte, b []byte) (*Done, error) {
	if len(b) < doneLen {
		return nil, short("DONE")
	}
	return &Done{
		Token:    tok,
		Status:   binary.LittleEndian.Uint16(b),
		CurCmd:   binary.LittleEndian.Uint16(b[2:]),
		RowCount: binary.LittleEndian.Uint64(b[4:]),
	}, nil
}

// Append writes the token to dst (Token 0 means TokenDone).
func (d *Done) Append(dst []byte) []byte {
	tok := d.Token
	if tok == 0 {
		tok = TokenDone
	}
	dst = append(dst, tok)
	dst = binary.LittleEndian.AppendUint16(dst, d.Status)
	dst = binary.LittleEndian.AppendUint16(dst, d.CurCmd)
	return binary.LittleEndian.AppendUint64(dst, d.RowCount)
}

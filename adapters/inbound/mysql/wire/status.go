package wire

import "encoding/binary"

// OKOrEOFStatus returns the status flags of an OK packet (0x00, or 0xfe
// with CLIENT_DEPRECATE_EOF: ok) or an EOF packet (0xfe).
func OKOrEOFStatus(p []byte, ok bool) uint16 {
	if p[0] == 0xfe && !ok {
		if len(p) >= 5 {
			return binary.LittleEndian.Uint16(p[3:])
		}
		return 0
	}
	return OKStatus(p)
}

// OKStatus returns the status flags of an OK packet.
func OKStatus(p []byte) uint16 {
	q := p[1:]
	for range 2 { // affected rows, last insert id
		_, n, ok := LenencInt(q)
		if !ok {
			return 0
		}
		q = q[n:]
	}
	if len(q) < 2 {
		return 0
	}
	return binary.LittleEndian.Uint16(q)
}

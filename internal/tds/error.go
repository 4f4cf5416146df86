package tds

import "encoding/binary"

// ErrorInfo is the body shared by the ERROR (0xAA) and INFO (0xAB) tokens,
// MS-TDS 2.2.7.10 and 2.2.7.13. Class is the severity (ERROR ≥ 11); Line is
// the batch line (LONG from TDS 7.2 on).
type ErrorInfo struct {
	Number     int32
	State      byte
	Class      byte
	Message    string
	ServerName string
	ProcName   string
	Line       int32
}

// DecodeErrorInfo parses an ERROR or INFO token body (after the token byte
// and USHORT length).
func DecodeErrorInfo(b []byte) (*ErrorInfo, error) {
	r := &reader{b: b}
	e := &ErrorInfo{Number: int32(r.u32("Number")), State: r.u8("State"), Class: r.u8("Class")}
	e.Message = r.usvarchar("MsgText")
	e.ServerName = r.bvarchar("ServerName")
	e.ProcName = r.bvarchar("ProcName")
	e.Line = int32(r.u32("LineNumber"))
	if r.err != nil {
		return nil, r.err
	}
	return e, nil
}

// Append writes the token tok (TokenError or TokenInfo) to dst. Texts longer
// than the wire's counts allow are cut.
func (e *ErrorInfo) Append(dst []byte, tok byte) []byte {
	body := binary.LittleEndian.AppendUint32(nil, uint32(e.Number))
	body = append(body, e.State, e.Class)
	body = appendUSVarchar(body, cut(e.Message, 0xFFFF))
	body = appendBVarchar(body, cut(e.ServerName, 0xFF))
	body = appendBVarchar(body, cut(e.ProcName, 0xFF))
	body = binary.LittleEndian.AppendUint32(body, uint32(e.Line))
	return appendUSToken(dst, tok, body)
}

// cut shortens s to at most n UTF-16 code units, on a rune boundary.
func cut(s string, n int) string {
	c := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if c+w > n {
			return s[:i]
		}
		c += w
	}
	return s
}

package wire

import "encoding/binary"

// ERR is one ERR packet (MySQL Client/Server Protocol, ERR_Packet):
// an error number, a five-character SQLSTATE and a message.
type ERR struct {
	Code  uint16
	State string
	Msg   string
}

// With returns e carrying msg.
func (e ERR) With(msg string) ERR { e.Msg = msg; return e }

// Encode returns the ERR_Packet payload (CLIENT_PROTOCOL_41 form).
func (e ERR) Encode() []byte {
	b := make([]byte, 0, 9+len(e.Msg))
	b = append(b, 0xff)
	b = binary.LittleEndian.AppendUint16(b, e.Code)
	b = append(b, '#')
	b = append(b, (e.State + "HY000")[:5]...)
	return append(b, e.Msg...)
}

package tds

import (
	"encoding/binary"
)

// Token types of the tabular response, MS-TDS 2.2.7.
const (
	TokenOffset        byte = 0x78
	TokenReturnStatus  byte = 0x79
	TokenColMetadata   byte = 0x81
	TokenAltMetadata   byte = 0x88
	TokenDataClassif   byte = 0xA3
	TokenTabName       byte = 0xA4
	TokenColInfo       byte = 0xA5
	TokenOrder         byte = 0xA9
	TokenError         byte = 0xAA
	TokenInfo          byte = 0xAB
	TokenReturnValue   byte = 0xAC
	TokenLoginAck      byte = 0xAD
	TokenFeatureExtAck byte = 0xAE
	TokenRow           byte = 0xD1
	TokenNBCRow        byte = 0xD2
	TokenAltRow        byte = 0xD3
	TokenEnvChange     byte = 0xE3
	TokenSessionState  byte = 0xE4
	TokenSSPI          byte = 0xED
	TokenFedAuthInfo   byte = 0xEE
	TokenDone          byte = 0xFD
	TokenDoneProc      byte = 0xFE
	TokenDoneInProc    byte = 0xFF
)

// LoginAck is the LOGINACK token (0xAD), MS-TDS 2.2.7.14. TDSVersion is
// big-endian on the wire here (unlike LOGIN7).
type LoginAck struct {
	Interface  byte // 1 = SQL_TSQL
	TDSVersion uint32
	ProgName   string
	Major      byte
	Minor      byte
	BuildHi    byte
	BuildLo    byte
}

// DecodeLoginAck parses a LOGINACK token body (after the token byte and the
// USHORT length).
func DecodeLoginAck(b []byte) (*LoginAck, error) {
	r := &reader{b: b}
	a := &LoginAck{Interface: r.u8("Interface")}
	v := r.bytes(4, "TDSVersion")
	if v != nil {
		a.TDSVersion = binary.BigEndian.Uint32(v)
	}
	a.ProgName = r.bvarchar("ProgName")
	a.Major, a.Minor, a.BuildHi, a.BuildLo = r.u8("MajorVer"), r.u8("MinorVer"), r.u8("BuildNumHi"), r.u8("BuildNumLow")
	if r.err != nil {
		return nil, r.err
	}
	return a, nil
}

// Append writes the whole token (type, length, body) to dst.
func (a *LoginAck) Append(dst []byte) []byte {
	body := []byte{a.Interface}
	body = binary.BigEndian.AppendUint32(body, a.TDSVersion)
	body = appendBVarchar(body, a.ProgName)
	body = append(body, a.Major, a.Minor, a.BuildHi, a.BuildLo)
	return appendUSToken(dst, TokenLoginAck, body)
}

// appendUSToken writes a token whose length is a USHORT before the body.
func appendUSToken(dst []byte, tok byte, body []byte) []byte {
	dst = append(dst, tok)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(body)))
	return append(dst, body...)
}

package tds

import (
	"encoding/binary"
	"fmt"
)

// TDS versions as LOGIN7 and LOGINACK carry them (MS-TDS 2.2.6.4, 2.2.7.14).
const (
	Version71  uint32 = 0x71000001
	Version72  uint32 = 0x72090002
	Version73A uint32 = 0x730A0003
	Version73B uint32 = 0x730B0003
	Version74  uint32 = 0x74000004
	Version80  uint32 = 0x08000000
)

// OptionFlags3 bits used here, MS-TDS 2.2.6.4.
const (
	Flag3ChangePassword byte = 0x01
	Flag3Extension      byte = 0x10
)

// OptionFlags2 bit fIntSecurity: integrated (SSPI/Kerberos) authentication.
const Flag2IntSecurity byte = 0x80

// FeatureExt ids, MS-TDS 2.2.6.4 (FeatureExt).
const (
	FeatureSessionRecovery  byte = 0x01
	FeatureFedAuth          byte = 0x02
	FeatureColumnEncryption byte = 0x04
	FeatureGlobalTx         byte = 0x05
	FeatureAzureSQLSupport  byte = 0x08
	FeatureDataClassif      byte = 0x09
	FeatureUTF8Support      byte = 0x0A
	FeatureTerminator       byte = 0xFF
)

// Feature is one FeatureExt entry of LOGIN7 (or FEATUREEXTACK): id and data.
type Feature struct {
	ID   byte
	Data []byte
}

// login7FixedLen is the fixed part of LOGIN7 up to and including cbSSPILong.
const login7FixedLen = 94

// Login7 is the LOGIN7 message (packet type 16), MS-TDS 2.2.6.4. Password and
// ChangePassword are plain text: DecodeLogin7 undoes the wire scramble and
// Encode reapplies it. Features is the FeatureExt list (only when OptionFlags3
// has Flag3Extension). The Sidecar reads it to learn the user, database,
// application name and packet size, and re-encodes it for the upstream leg.
type Login7 struct {
	TDSVersion     uint32
	PacketSize     uint32
	ClientProgVer  uint32
	ClientPID      uint32
	ConnectionID   uint32
	OptionFlags1   byte
	OptionFlags2   byte
	TypeFlags      byte
	OptionFlags3   byte
	ClientTimeZone int32
	ClientLCID     uint32

	HostName       string
	UserName       string
	Password       string
	AppName        string
	ServerName     string
	CltIntName     string // client library name
	Language       string
	Database       string
	ClientID       [6]byte // MAC address
	SSPI           []byte
	AtchDBFile     string
	ChangePassword string
	Features       []Feature
}

// DecodeLogin7 parses a LOGIN7 payload. Errors: ErrShort when the fixed part
// is incomplete or any offset/length points past the payload.
func DecodeLogin7(b []byte) (*Login7, error) {
	if len(b) < login7FixedLen {
		return nil, short("LOGIN7 fixed part")
	}
	r := &reader{b: b}
	l := &Login7{}
	r.u32("Length")
	l.TDSVersion = r.u32("TDSVersion")
	l.PacketSize = r.u32("PacketSize")
	l.ClientProgVer = r.u32("ClientProgVer")
	l.ClientPID = r.u32("ClientPID")
	l.ConnectionID = r.u32("ConnectionID")
	l.OptionFlags1 = r.u8("OptionFlags1")
	l.OptionFlags2 = r.u8("OptionFlags2")
	l.TypeFlags = r.u8("TypeFlags")
	l.OptionFlags3 = r.u8("OptionFlags3")
	l.ClientTimeZone = int32(r.u32("ClientTimeZone"))
	l.ClientLCID = r.u32("ClientLCID")

	var err error
	str := func(what string) string {
		off, n := int(r.u16(what)), int(r.u16(what))
		if err != nil {
			return ""
		}
		if off+2*n > len(b) {
			err = fmt.Errorf("%w: LOGIN7 %s at %d+%d chars past %d bytes", ErrShort, what, off, n, len(b))
			return ""
		}
		return DecodeUCS2(b[off : off+2*n])
	}
	l.HostName = str("HostName")
	l.UserName = str("UserName")
	pw := [2]int{int(r.u16("Password")), int(r.u16("Password"))}
	l.AppName = str("AppName")
	l.ServerName = str("ServerName")
	extOff, extLen := int(r.u16("Extension")), int(r.u16("Extension"))
	l.CltIntName = str("CltIntName")
	l.Language = str("Language")
	l.Database = str("Database")
	copy(l.ClientID[:], r.bytes(6, "ClientID"))
	sspiOff, sspiLen := int(r.u16("SSPI")), int(r.u16("SSPI"))
	l.AtchDBFile = str("AtchDBFile")
	cpw := [2]int{int(r.u16("ChangePassword")), int(r.u16("ChangePassword"))}
	sspiLong := int(r.u32("cbSSPILong"))
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	secret := func(what string, p [2]int) string {
		if err != nil {
			return ""
		}
		if p[0]+2*p[1] > len(b) {
			err = fmt.Errorf("%w: LOGIN7 %s past the payload", ErrShort, what)
			return ""
		}
		return DecodeUCS2(unscramble(b[p[0] : p[0]+2*p[1]]))
	}
	l.Password = secret("Password", pw)
	l.ChangePassword = secret("ChangePassword", cpw)
	if sspiLen == 0xFFFF {
		sspiLen = sspiLong
	}
	if sspiLen > 0 {
		if sspiOff+sspiLen > len(b) {
			return nil, short("LOGIN7 SSPI")
		}
		l.SSPI = b[sspiOff : sspiOff+sspiLen]
	}
	if l.OptionFlags3&Flag3Extension != 0 && extLen >= 4 {
		if extOff+4 > len(b) {
			return nil, short("LOGIN7 extension pointer")
		}
		fOff := int(binary.LittleEndian.Uint32(b[extOff:]))
		if fOff > len(b) {
			return nil, short("LOGIN7 FeatureExt")
		}
		l.Features, err = decodeFeatures(b[fOff:])
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

func decodeFeatures(b []byte) ([]Feature, error) {
	r := &reader{b: b}
	var fs []Feature
	for {
		id := r.u8("FeatureId")
		if r.err != nil {
			return nil, r.err
		}
		if id == FeatureTerminator {
			return fs, nil
		}
		n := r.u32("FeatureDataLen")
		d := r.bytes(int(min(n, uint32(len(b)+1))), "FeatureData")
		if r.err != nil {
			return nil, r.err
		}
		fs = append(fs, Feature{ID: id, Data: d})
	}
}

// AppendFeatureExtAck writes a FEATUREEXTACK token (0xAE, MS-TDS 2.2.7.11)
// acknowledging fs: each FeatureId, a ULONG length and its data, then the
// terminator. The Scanner frames it and takes the Features it changes.
func AppendFeatureExtAck(dst []byte, fs []Feature) []byte {
	dst = append(dst, TokenFeatureExtAck)
	for _, f := range fs {
		dst = append(dst, f.ID)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(f.Data)))
		dst = append(dst, f.Data...)
	}
	return append(dst, FeatureTerminator)
}

// Feature returns the data of the FeatureExt entry with this id.
func (l *Login7) Feature(id byte) ([]byte, bool) {
	for _, f := range l.Features {
		if f.ID == id {
			return f.Data, true
		}
	}
	return nil, false
}

// Encode returns the LOGIN7 payload. Variable fields are laid out in the
// order go-mssqldb and the spec's example use (host, user, password, app,
// server, library, language, database, SSPI, attach file, change password,
// extension pointer, FeatureExt), so a client's LOGIN7 in that layout
// round-trips byte for byte. Flag3Extension follows len(Features) > 0.
func (l *Login7) Encode() []byte {
	flags3 := l.OptionFlags3 &^ Flag3Extension
	if len(l.Features) > 0 {
		flags3 |= Flag3Extension
	}
	out := make([]byte, login7FixedLen, 256)
	le := binary.LittleEndian
	le.PutUint32(out[4:], l.TDSVersion)
	le.PutUint32(out[8:], l.PacketSize)
	le.PutUint32(out[12:], l.ClientProgVer)
	le.PutUint32(out[16:], l.ClientPID)
	le.PutUint32(out[20:], l.ConnectionID)
	out[24], out[25], out[26], out[27] = l.OptionFlags1, l.OptionFlags2, l.TypeFlags, flags3
	le.PutUint32(out[28:], uint32(l.ClientTimeZone))
	le.PutUint32(out[32:], l.ClientLCID)
	slot := func(at int, data []byte, count int) {
		le.PutUint16(out[at:], uint16(len(out)))
		le.PutUint16(out[at+2:], uint16(count))
		out = append(out, data...)
	}
	text := func(at int, s string) { slot(at, AppendUCS2(nil, s), UCS2Len(s)) }
	text(36, l.HostName)
	text(40, l.UserName)
	slot(44, scramble(AppendUCS2(nil, l.Password)), UCS2Len(l.Password))
	text(48, l.AppName)
	text(52, l.ServerName)
	text(60, l.CltIntName)
	text(64, l.Language)
	text(68, l.Database)
	copy(out[72:78], l.ClientID[:])
	if len(l.SSPI) >= 0xFFFF {
		slot(78, l.SSPI, 0xFFFF)
		le.PutUint32(out[90:], uint32(len(l.SSPI)))
	} else {
		slot(78, l.SSPI, len(l.SSPI))
	}
	text(82, l.AtchDBFile)
	slot(86, scramble(AppendUCS2(nil, l.ChangePassword)), UCS2Len(l.ChangePassword))
	if len(l.Features) > 0 {
		le.PutUint16(out[56:], uint16(len(out)))
		le.PutUint16(out[58:], 4)
		out = le.AppendUint32(out, uint32(len(out)+4))
		for _, f := range l.Features {
			out = append(out, f.ID)
			out = le.AppendUint32(out, uint32(len(f.Data)))
			out = append(out, f.Data...)
		}
		out = append(out, FeatureTerminator)
	}
	le.PutUint32(out[0:], uint32(len(out)))
	return out
}

// scramble applies LOGIN7's password encoding (MS-TDS 2.2.6.4): swap the
// nibbles of each byte, then XOR with 0xA5.
func scramble(b []byte) []byte {
	for i, c := range b {
		b[i] = (c<<4 | c>>4) ^ 0xA5
	}
	return b
}

// unscramble undoes scramble into a new slice (the input is the message).
func unscramble(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		c ^= 0xA5
		out[i] = c<<4 | c>>4
	}
	return out
}

package tds

import (
	"encoding/binary"
	"fmt"
)

// PRELOGIN option tokens, MS-TDS 2.2.6.5.
const (
	PreloginVersion         byte = 0x00
	PreloginEncryption      byte = 0x01
	PreloginInstOpt         byte = 0x02
	PreloginThreadID        byte = 0x03
	PreloginMARS            byte = 0x04
	PreloginTraceID         byte = 0x05
	PreloginFedAuthRequired byte = 0x06
	PreloginNonceOpt        byte = 0x07
	PreloginTerminator      byte = 0xFF
)

// ENCRYPTION option values, MS-TDS 2.2.6.5.
const (
	EncryptOff    byte = 0x00
	EncryptOn     byte = 0x01
	EncryptNotSup byte = 0x02
	EncryptReq    byte = 0x03
)

// PreloginOption is one PRELOGIN option: its token and its raw data.
type PreloginOption struct {
	Token byte
	Data  []byte
}

// Prelogin is the PRELOGIN message (packet type 18), MS-TDS 2.2.6.5, in both
// directions. Options keep their wire order so Encode(Decode(b)) round-trips;
// the accessors below read the typed values.
type Prelogin struct {
	Options []PreloginOption
}

// DecodePrelogin parses a PRELOGIN payload. Errors: ErrShort for a missing
// terminator, an option whose offset/length points outside the payload;
// ErrTooLarge for options that Encode could not write back (over 64 KiB).
func DecodePrelogin(b []byte) (*Prelogin, error) {
	p := &Prelogin{}
	size := 0
	for i := 0; ; i += 5 {
		if i >= len(b) {
			return nil, short("PRELOGIN terminator")
		}
		if b[i] == PreloginTerminator {
			return p, nil
		}
		if i+5 > len(b) {
			return nil, short("PRELOGIN option header")
		}
		off := int(binary.BigEndian.Uint16(b[i+1:]))
		n := int(binary.BigEndian.Uint16(b[i+3:]))
		if off+n > len(b) {
			return nil, fmt.Errorf("%w: PRELOGIN option 0x%02X at %d+%d past %d bytes", ErrShort, b[i], off, n, len(b))
		}
		p.Options = append(p.Options, PreloginOption{Token: b[i], Data: b[off : off+n]})
		// Options may share bytes on the wire but Encode lays each out
		// on its own: refuse what could not be written back with USHORT
		// offsets (a real PRELOGIN is under a hundred bytes).
		if size += 5 + n; size+1 > 0xFFFF {
			return nil, fmt.Errorf("%w: PRELOGIN options of %d bytes", ErrTooLarge, size)
		}
	}
}

// Encode returns the PRELOGIN payload: option headers, terminator, then the
// data of each option in order.
func (p *Prelogin) Encode() []byte {
	off := len(p.Options)*5 + 1
	out := make([]byte, 0, off+64)
	for _, o := range p.Options {
		out = append(out, o.Token)
		out = binary.BigEndian.AppendUint16(out, uint16(off))
		out = binary.BigEndian.AppendUint16(out, uint16(len(o.Data)))
		off += len(o.Data)
	}
	out = append(out, PreloginTerminator)
	for _, o := range p.Options {
		out = append(out, o.Data...)
	}
	return out
}

// Get returns the data of the first option with this token.
func (p *Prelogin) Get(token byte) ([]byte, bool) {
	for _, o := range p.Options {
		if o.Token == token {
			return o.Data, true
		}
	}
	return nil, false
}

// Set replaces the option's data, or appends the option when absent.
func (p *Prelogin) Set(token byte, data []byte) {
	for i := range p.Options {
		if p.Options[i].Token == token {
			p.Options[i].Data = data
			return
		}
	}
	p.Options = append(p.Options, PreloginOption{Token: token, Data: data})
}

// Encryption returns the ENCRYPTION option's value (EncryptOff…EncryptReq,
// possibly with the 0x80 CLIENT_CERT bit) and whether it was sent.
func (p *Prelogin) Encryption() (byte, bool) {
	d, ok := p.Get(PreloginEncryption)
	if !ok || len(d) < 1 {
		return 0, false
	}
	return d[0], true
}

// Version returns the VERSION option: UL_VERSION (big-endian major.minor.build)
// and US_SUBBUILD.
func (p *Prelogin) Version() (version uint32, subBuild uint16, ok bool) {
	d, ok := p.Get(PreloginVersion)
	if !ok || len(d) < 6 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint32(d), binary.LittleEndian.Uint16(d[4:]), true
}

// MARS reports whether the client asked for MARS (option value 1).
func (p *Prelogin) MARS() bool {
	d, ok := p.Get(PreloginMARS)
	return ok && len(d) > 0 && d[0] == 1
}

// FedAuthRequired reports the FEDAUTHREQUIRED option's value (1 = the client
// will use federated authentication).
func (p *Prelogin) FedAuthRequired() bool {
	d, ok := p.Get(PreloginFedAuthRequired)
	return ok && len(d) > 0 && d[0] == 1
}

// ThreadID returns the client's THREADID option (big-endian, as sent).
func (p *Prelogin) ThreadID() (uint32, bool) {
	d, ok := p.Get(PreloginThreadID)
	if !ok || len(d) < 4 {
		return 0, false
	}
	return binary.BigEndian.Uint32(d), true
}

// VersionData builds a VERSION option value for a server answer.
func VersionData(version uint32, subBuild uint16) []byte {
	d := binary.BigEndian.AppendUint32(nil, version)
	return binary.LittleEndian.AppendUint16(d, subBuild)
}

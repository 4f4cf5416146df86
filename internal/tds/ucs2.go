package tds

import (
	"encoding/binary"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// DecodeUCS2 turns UCS-2/UTF-16 little-endian bytes (MS-TDS 2.2.5.1.1, the
// encoding of every Unicode string on the wire) into a Go string. An odd
// trailing byte is ignored; unpaired surrogates become U+FFFD. It writes
// the string directly: a 4 Mi-character SQLBatch costs its UTF-8 bytes, not
// also 8 MiB of code units and 16 MiB of runes on the way.
func DecodeUCS2(b []byte) string {
	n := len(b) / 2
	var s strings.Builder
	s.Grow(n)
	for i := 0; i < n; i++ {
		r := rune(binary.LittleEndian.Uint16(b[2*i:]))
		switch {
		case r < utf8.RuneSelf:
			s.WriteByte(byte(r))
			continue
		case utf16.IsSurrogate(r):
			if i+1 < n {
				if d := utf16.DecodeRune(r, rune(binary.LittleEndian.Uint16(b[2*i+2:]))); d != utf8.RuneError {
					s.WriteRune(d)
					i++
					continue
				}
			}
			r = utf8.RuneError
		}
		s.WriteRune(r)
	}
	return s.String()
}

// AppendUCS2 appends s as UTF-16 little-endian to dst.
func AppendUCS2(dst []byte, s string) []byte {
	for _, r := range utf16.Encode([]rune(s)) {
		dst = binary.LittleEndian.AppendUint16(dst, r)
	}
	return dst
}

// UCS2Len is the number of UTF-16 code units of s (the "character count" the
// spec's US_VARCHAR / B_VARCHAR lengths and LOGIN7 offsets use).
func UCS2Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// reader is a bounds-checked cursor over one message; every read reports
// ErrShort instead of panicking, so decoders can be fuzzed.
type reader struct {
	b   []byte
	off int
	err error
	// plpUnknown: the last PLP value read had PLP_UNKNOWN_LEN.
	plpUnknown bool
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = short(what)
	}
}

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) bytes(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > r.left() {
		r.fail(what)
		return nil
	}
	v := r.b[r.off : r.off+n]
	r.off += n
	return v
}

func (r *reader) u8(what string) byte {
	v := r.bytes(1, what)
	if v == nil {
		return 0
	}
	return v[0]
}

func (r *reader) u16(what string) uint16 {
	v := r.bytes(2, what)
	if v == nil {
		return 0
	}
	return binary.LittleEndian.Uint16(v)
}

func (r *reader) u32(what string) uint32 {
	v := r.bytes(4, what)
	if v == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(v)
}

func (r *reader) u64(what string) uint64 {
	v := r.bytes(8, what)
	if v == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(v)
}

// bvarchar reads B_VARCHAR: a 1-byte character count then UCS-2.
func (r *reader) bvarchar(what string) string {
	n := int(r.u8(what))
	return DecodeUCS2(r.bytes(2*n, what))
}

// usvarchar reads US_VARCHAR: a 2-byte character count then UCS-2.
func (r *reader) usvarchar(what string) string {
	n := int(r.u16(what))
	return DecodeUCS2(r.bytes(2*n, what))
}

func appendBVarchar(dst []byte, s string) []byte {
	dst = append(dst, byte(UCS2Len(s)))
	return AppendUCS2(dst, s)
}

func appendUSVarchar(dst []byte, s string) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, uint16(UCS2Len(s)))
	return AppendUCS2(dst, s)
}

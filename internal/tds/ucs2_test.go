package tds

import (
	"encoding/binary"
	"testing"
	"unicode/utf16"
)

// DecodeUCS2 reads every code unit sequence as unicode/utf16 does: pairs
// joined, unpaired surrogates (high then not low, a lone low, one at the
// end) U+FFFD, an odd trailing byte ignored.
func FuzzDecodeUCS2(f *testing.F) {
	for _, s := range []string{"", "a", "ab\x00", "\x3d\xd8\x00\xde", "\x3d\xd8a\x00", "\x00\xdc\x3d\xd8", "\x3d\xd8\x3d\xd8\x00\xde", "\xe9\x00\x71\x67z"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		if got, want := DecodeUCS2(b), string(utf16.Decode(u)); got != want {
			t.Errorf("DecodeUCS2(% x) = %q, want %q", b, got, want)
		}
	})
}

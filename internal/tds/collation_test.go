package tds

import (
	"testing"

	"golang.org/x/text/encoding/charmap"
)

// The code page of the collations a server names in COLMETADATA: by SQL
// sort id, else by the LCID's language; none for a double-byte one.
func TestCollationCharmap(t *testing.T) {
	for name, tc := range map[string]struct {
		c    [5]byte
		want *charmap.Charmap
		utf8 bool
	}{
		"SQL_Latin1_General_CP1_CI_AS":  {[5]byte{0x09, 0x04, 0xD0, 0x00, 0x34}, charmap.Windows1252, false},
		"Latin1_General_100_CI_AS":      {[5]byte{0x09, 0x04, 0xD0, 0x20, 0x00}, charmap.Windows1252, false},
		"Polish_CI_AS":                  {[5]byte{0x15, 0x04, 0xD0, 0x00, 0x00}, charmap.Windows1250, false},
		"Cyrillic_General_CI_AS":        {[5]byte{0x19, 0x04, 0xD0, 0x00, 0x00}, charmap.Windows1251, false},
		"Japanese_CI_AS":                {[5]byte{0x11, 0x04, 0xD0, 0x00, 0x00}, nil, false},
		"Latin1_General_100_CI_AS_UTF8": {[5]byte{0x09, 0x04, 0xD0, 0x24, 0x00}, charmap.Windows1252, true},
	} {
		if got := CollationCharmap(tc.c); got != tc.want {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
		if CollationUTF8(tc.c) != tc.utf8 {
			t.Errorf("%s: UTF8 %v", name, !tc.utf8)
		}
	}
}
